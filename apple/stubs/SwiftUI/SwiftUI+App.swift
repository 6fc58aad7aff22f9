// More of the SwiftUI stub: what Examples/ios-app uses to be an app (App, Scene, WindowGroup),
// hold state (State), lay out (VStack, the ViewBuilder's blocks and branches) and be found by
// its UI test (accessibilityIdentifier), from developer.apple.com/documentation/swiftui with the
// iOS 18 SDK's isolation: App and Scene are `@MainActor @preconcurrency` like View. The
// parameter-pack `buildBlock` is the iOS 17 SDK's; older SDKs spell it as ten overloads.
@_exported import Foundation

@MainActor @preconcurrency public protocol App {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
    @MainActor @preconcurrency init()
}

extension App {
    @MainActor @preconcurrency public static func main() { fatalError("stub") }
}

@MainActor @preconcurrency public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

extension Never: Scene {}

@resultBuilder public struct SceneBuilder {
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { content }
}

public struct WindowGroup<Content: View>: Scene {
    public init(@ViewBuilder content: () -> Content) {}
    public typealias Body = Never
    public var body: Never { fatalError("stub") }
}

public protocol DynamicProperty {
    mutating func update()
}

extension DynamicProperty {
    public mutating func update() {}
}

@propertyWrapper public struct State<Value>: DynamicProperty {
    public init(wrappedValue value: Value) {}
    public init(initialValue value: Value) {}
    public var wrappedValue: Value {
        get { fatalError("stub") }
        nonmutating set {}
    }
}

public struct HorizontalAlignment: Equatable, Sendable {
    public static let center = HorizontalAlignment()
}

public struct VStack<Content: View>: View {
    public init(alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content)
    {}
    public typealias Body = Never
    public var body: Never { fatalError("stub") }
}

public struct TupleView<T>: View {
    nonisolated public init(_ value: T) {}
    public typealias Body = Never
    public var body: Never { fatalError("stub") }
}

public struct _ConditionalContent<TrueContent: View, FalseContent: View>: View {
    public typealias Body = Never
    public var body: Never { fatalError("stub") }
}

extension ViewBuilder {
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<
        (repeat each Content)
    > { fatalError("stub") }
    public static func buildEither<TrueContent: View, FalseContent: View>(first: TrueContent)
        -> _ConditionalContent<TrueContent, FalseContent>
    { fatalError("stub") }
    public static func buildEither<TrueContent: View, FalseContent: View>(second: FalseContent)
        -> _ConditionalContent<TrueContent, FalseContent>
    { fatalError("stub") }
}

extension Button where Label == Text {
    public init<S: StringProtocol>(_ title: S, action: @escaping @MainActor () -> Void) {
        self.init(action: action) { Text(verbatim: String(title)) }
    }
}

extension View {
    @MainActor @preconcurrency public func padding(_ length: CGFloat) -> some View { self }
    @MainActor @preconcurrency public func accessibilityIdentifier(_ identifier: String) -> some View { self }
    @MainActor @preconcurrency public func onOpenURL(perform action: @escaping (URL) -> Void) -> some View { self }
}
