// A type-checking stub of Apple's UIKit: only what PorticoKit uses, with the actor isolation and
// extension availability of the iOS 18 SDK (developer.apple.com/documentation/uikit): UIKit's
// classes are `@MainActor`, the notification names are `nonisolated`, and
// `UIApplication.shared` is unavailable in app extensions. Nothing here runs: bodies trap.
@_exported import Foundation

@MainActor open class UIResponder: NSObject {}

@MainActor open class UIView: UIResponder {}

// The UIAccessibility informal protocol: properties UIKit adds to NSObject (main-actor
// isolated in the iOS 18 SDK).
extension NSObject {
    @MainActor public var accessibilityLabel: String? {
        get { fatalError("stub") }
        set { fatalError("stub") }
    }
    @MainActor public var accessibilityHint: String? {
        get { fatalError("stub") }
        set { fatalError("stub") }
    }
}

@MainActor open class UIColor: NSObject, @unchecked Sendable {
    public init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) { super.init() }
    open class var white: UIColor { fatalError("stub") }
}

@MainActor open class UIMenuElement: NSObject {}

/// `typealias UIActionHandler = (UIAction) -> Void` (not main-actor isolated in its type).
public typealias UIActionHandler = (UIAction) -> Void

@MainActor open class UIAction: UIMenuElement {
    public convenience init(handler: @escaping UIActionHandler) { fatalError("stub") }
}

@MainActor open class UIControl: UIView {}

@MainActor open class UIButton: UIControl {
    /// iOS 15: the button's appearance as a value.
    public struct Configuration: Hashable {
        public static func filled() -> UIButton.Configuration { fatalError("stub") }
        public var title: String?
        public var baseForegroundColor: UIColor?
        public var baseBackgroundColor: UIColor?
    }

    public convenience init(configuration: UIButton.Configuration, primaryAction: UIAction?) { fatalError("stub") }
}

@MainActor open class UIWindow: UIView {
    public override init() { super.init() }
    public init(windowScene: UIWindowScene) { super.init() }
    open var rootViewController: UIViewController?
    open var windowScene: UIWindowScene? { fatalError("stub") }
    open var isKeyWindow: Bool { fatalError("stub") }
    open func makeKeyAndVisible() {}
}

@MainActor open class UIViewController: UIResponder {
    open var presentedViewController: UIViewController? { fatalError("stub") }
}

@MainActor open class UIScene: UIResponder {
    public enum ActivationState: Int, Sendable {
        case unattached = -1
        case foregroundActive = 0
        case foregroundInactive = 1
        case background = 2
    }
    open var activationState: UIScene.ActivationState { fatalError("stub") }
    nonisolated public static let didActivateNotification = Notification.Name("UISceneDidActivateNotification")
    nonisolated public static let willEnterForegroundNotification = Notification.Name(
        "UISceneWillEnterForegroundNotification")
}

@MainActor open class UIWindowScene: UIScene {
    open var windows: [UIWindow] { fatalError("stub") }
    open var keyWindow: UIWindow? { fatalError("stub") }
}

@MainActor open class UIApplication: UIResponder {
    @available(iOSApplicationExtension, unavailable)
    @available(macCatalystApplicationExtension, unavailable)
    @available(visionOSApplicationExtension, unavailable)
    open class var shared: UIApplication { fatalError("stub") }

    public enum State: Int, Sendable {
        case active = 0
        case inactive = 1
        case background = 2
    }
    open var applicationState: UIApplication.State { fatalError("stub") }
    open var connectedScenes: Set<UIScene> { fatalError("stub") }

    public struct OpenExternalURLOptionsKey: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let universalLinksOnly = OpenExternalURLOptionsKey(
            rawValue: "UIApplicationOpenURLOptionUniversalLinksOnly")
    }

    open func open(
        _ url: URL, options: [UIApplication.OpenExternalURLOptionsKey: Any] = [:],
        completionHandler completion: (@MainActor @Sendable (Bool) -> Void)? = nil
    ) { fatalError("stub") }

    open func canOpenURL(_ url: URL) -> Bool { fatalError("stub") }

    nonisolated public static let didBecomeActiveNotification = Notification.Name(
        "UIApplicationDidBecomeActiveNotification")
    nonisolated public static let willEnterForegroundNotification = Notification.Name(
        "UIApplicationWillEnterForegroundNotification")
    nonisolated public static let didEnterBackgroundNotification = Notification.Name(
        "UIApplicationDidEnterBackgroundNotification")
    nonisolated public static let willResignActiveNotification = Notification.Name(
        "UIApplicationWillResignActiveNotification")
}

// From the Objective-C runtime (the ObjectiveC module and Foundation, which UIKit re-exports):
// selectors and NSObject's class-side `responds(to:)` / `perform(_:)`, which Linux's Foundation
// lacks.
public struct Selector: Hashable, Sendable {
    public init(_ name: String) {}
}

public func NSSelectorFromString(_ aSelectorName: String) -> Selector { Selector(aSelectorName) }

extension NSObject {
    public class func responds(to aSelector: Selector!) -> Bool { fatalError("stub") }
    public class func perform(_ aSelector: Selector!) -> Unmanaged<AnyObject>! { fatalError("stub") }
}
