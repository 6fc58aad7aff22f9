// A type-checking stub of Apple's AppKit: only what PorticoKit uses on macOS, with the
// `@MainActor` isolation of the macOS 15 SDK (developer.apple.com/documentation/appkit).
// Nothing here runs: bodies trap.
@_exported import Foundation

@MainActor open class NSResponder: NSObject {}

@MainActor open class NSWindow: NSResponder {
    public override init() { super.init() }
    open var isKeyWindow: Bool { fatalError("stub") }
}

@MainActor open class NSApplication: NSResponder {
    open class var shared: NSApplication { fatalError("stub") }
    open var keyWindow: NSWindow? { fatalError("stub") }
    open var isActive: Bool { fatalError("stub") }
    nonisolated public static let didBecomeActiveNotification = Notification.Name(
        "NSApplicationDidBecomeActiveNotification")
}
