// A type-checking stub of Apple's SwiftUI: only what PorticoKit's branded button uses, with the
// actor isolation of the iOS 18 / macOS 15 SDK (developer.apple.com/documentation/swiftui):
// `View` is `@MainActor @preconcurrency`, `Button`'s action is `@MainActor`. Nothing here
// runs: bodies trap, and modifiers declared `-> some View` return `self` only to give the
// opaque type an underlying one.
@_exported import Foundation

@MainActor @preconcurrency public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

extension Never: View {
    public typealias Body = Never
    public var body: Never { fatalError("stub") }
}

@resultBuilder public struct ViewBuilder {
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
}

public struct Text: View, Equatable, Sendable {
    public init(verbatim content: String) {}
    public typealias Body = Never
    public var body: Never { fatalError("stub") }
}

public struct Button<Label: View>: View {
    public init(action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label) {}
    public typealias Body = Never
    public var body: Never { fatalError("stub") }
}

public protocol ShapeStyle: Sendable {}

public struct Color: View, ShapeStyle, Hashable, Sendable {
    public enum RGBColorSpace: Hashable, Sendable {
        case sRGB
        case sRGBLinear
        case displayP3
    }
    public init(
        _ colorSpace: Color.RGBColorSpace = .sRGB, red: Double, green: Double, blue: Double, opacity: Double = 1
    ) {}
    public typealias Body = Never
    public var body: Never { fatalError("stub") }
}

@MainActor @preconcurrency public protocol PrimitiveButtonStyle {}

public struct BorderedProminentButtonStyle: PrimitiveButtonStyle {
    public init() {}
}

extension PrimitiveButtonStyle where Self == BorderedProminentButtonStyle {
    @MainActor @preconcurrency public static var borderedProminent: BorderedProminentButtonStyle {
        BorderedProminentButtonStyle()
    }
}

extension View {
    @MainActor @preconcurrency public func buttonStyle<S: PrimitiveButtonStyle>(_ style: S) -> some View { self }
    @MainActor @preconcurrency public func tint(_ tint: Color?) -> some View { self }
    @MainActor @preconcurrency public func accessibilityHint(_ hint: Text) -> some View { self }
}
