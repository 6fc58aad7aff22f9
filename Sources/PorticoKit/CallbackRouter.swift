import Foundation

/// Hands each URL the system opens in the app to the one handler that claims it: PorticoKit's
/// sign-in results, a payment SDK's results, the app's own deep links.
///
/// ```swift
/// let router = CallbackRouter()
/// router.register(signInsOf: manager)
/// router.register("payment", claims: { $0.host == "safepay" }, handle: { AlipaySDK.process($0) })
/// func scene(_ scene: UIScene, openURLContexts contexts: Set<UIOpenURLContext>) {
///     for context in contexts { router.route(context.url) }
/// }
/// ```
///
/// Why content and not the host: Alipay returns payment results *and* sign-in results on host
/// `safepay`, and many integrations send every `safepay` URL to the payment SDK, which drops the
/// sign-in (the authorization then waits until it times out). So sign-in handlers are asked
/// first and claim a URL only when it carries a pending authorization's `state` and a `code` or
/// `error`; the other handlers are asked in the order they were registered. A URL nobody claims
/// is refused (``route(_:)`` returns false), never guessed at.
public final class CallbackRouter: Sendable {
    private struct Handler: Sendable {
        let name: String
        let claims: @Sendable (URL) -> Bool
        let handle: @Sendable (URL) -> Void
    }

    private let handlers = LockedState<(signIns: [Handler], others: [Handler])>(([], []))

    /// A router with no handlers.
    public init() {}

    /// Routes `manager`'s pending sign-in results to it (its `handleOpenURL(_:)`).
    public func register(signInsOf manager: AuthorizationManager) {
        let handler = Handler(
            name: "sign-in \(manager.clientID)", claims: { manager.isPendingCallback($0) },
            handle: { manager.handleOpenURL($0) })
        handlers.withLock { $0.signIns.append(handler) }
    }

    /// Registers a handler named `name` (for ``handlerName(for:)``) that gets the URLs `claims`
    /// accepts and no sign-in handler claimed.
    public func register(
        _ name: String, claims: @escaping @Sendable (URL) -> Bool, handle: @escaping @Sendable (URL) -> Void
    ) {
        handlers.withLock { $0.others.append(Handler(name: name, claims: claims, handle: handle)) }
    }

    /// Gives `url` to the one handler that claims it.
    ///
    /// - Returns: false when no handler claims it: the URL is refused.
    @discardableResult
    public func route(_ url: URL) -> Bool {
        guard let handler = claimant(of: url) else { return false }
        handler.handle(url)
        return true
    }

    /// The name of the handler ``route(_:)`` would give `url` to, or nil when it would refuse it.
    public func handlerName(for url: URL) -> String? {
        claimant(of: url)?.name
    }

    private func claimant(of url: URL) -> Handler? {
        let (signIns, others) = handlers.withLock { ($0.signIns, $0.others) }
        return signIns.first { $0.claims(url) } ?? others.first { $0.claims(url) }
    }
}
