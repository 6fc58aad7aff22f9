// A type-checking stub of Apple's AuthenticationServices: only what PorticoKit uses, as the
// iOS 18 SDK declares it (developer.apple.com/documentation/authenticationservices). The session
// class is not main-actor isolated and its completion handler is a plain (non-`@Sendable`)
// closure that the system may call on any queue; the presentation-context protocol is
// `@MainActor`. Nothing here runs: bodies trap.
@_exported import Foundation

#if APPLE_STUB_MACOS
    import AppKit
    public typealias ASPresentationAnchor = NSWindow
#else
    import UIKit
    public typealias ASPresentationAnchor = UIWindow
#endif

@MainActor public protocol ASWebAuthenticationPresentationContextProviding: NSObjectProtocol {
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor
}

public let ASWebAuthenticationSessionErrorDomain = "com.apple.AuthenticationServices.WebAuthenticationSession"

public struct ASWebAuthenticationSessionError: Error, Hashable, Sendable {
    public enum Code: Int, Sendable {
        case canceledLogin = 1
        case presentationContextNotProvided = 2
        case presentationContextInvalid = 3
    }
    public var code: Code
    public static var canceledLogin: Code { .canceledLogin }
}

open class ASWebAuthenticationSession: NSObject {
    public typealias CompletionHandler = (URL?, (any Error)?) -> Void

    @available(iOS 17.4, macOS 14.4, tvOS 17.4, watchOS 10.4, visionOS 1.1, *)
    open class Callback: NSObject {
        public class func customScheme(_ customScheme: String) -> Self { fatalError("stub") }
        public class func https(host: String, path: String) -> Self { fatalError("stub") }
        open func matchesURL(_ url: URL) -> Bool { fatalError("stub") }
    }

    @available(
        iOS, introduced: 12.0, deprecated: 100000,
        message: "Use ASWebAuthenticationSession(url:callback:completionHandler:)"
    )
    public init(url URL: URL, callbackURLScheme: String?, completionHandler: @escaping CompletionHandler) {
        fatalError("stub")
    }

    @available(iOS 17.4, macOS 14.4, tvOS 17.4, watchOS 10.4, visionOS 1.1, *)
    public init(url URL: URL, callback: Callback, completionHandler: @escaping CompletionHandler) {
        fatalError("stub")
    }

    weak open var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)?
    open var prefersEphemeralWebBrowserSession: Bool = false
    open var canStart: Bool { fatalError("stub") }
    open func start() -> Bool { fatalError("stub") }
    open func cancel() { fatalError("stub") }
}
