import Foundation

extension AuthorizationManager {
    /// Completes a pending ``CustomSchemeRedirect`` authorization with `url`; the app's URL
    /// handler forwards every URL it opens here first.
    ///
    /// - Returns: true when `url` was this manager's callback (same scheme, host and path as
    ///   the redirect URI and the pending `state`); false otherwise, so the app can route other
    ///   callbacks (payment results, deep links) itself.
    @discardableResult
    public func handleOpenURL(_ url: URL) -> Bool {
        guard let waiter = redirects.current, waiter.matches(url) else { return false }
        waiter.deliver(url)
        return true
    }

    /// Tells the manager the app is in front again. A pending custom-scheme authorization that
    /// receives no callback within its grace (3 s by default) ends as cancelled by the user:
    /// the person came back without finishing, and waiting minutes for a time-out helps nobody.
    public func applicationDidBecomeActive() {
        redirects.current?.becameActive()
    }
}

extension AuthorizationManager {
    /// Whether `url` is the result of this manager's pending custom-scheme authorization, told by
    /// its content: the redirect URI's scheme, host and path, the pending `state`, and a `code`
    /// or an `error`. ``CallbackRouter`` asks this before any other handler, because a platform
    /// may send sign-in and payment results to one host (Alipay's `safepay`).
    public func isPendingCallback(_ url: URL) -> Bool {
        guard let waiter = redirects.current, !waiter.isFinished, waiter.matches(url),
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems
        else { return false }
        return items.contains { $0.name == "code" || $0.name == "error" }
    }
}
