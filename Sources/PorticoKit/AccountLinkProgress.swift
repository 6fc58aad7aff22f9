/// Handed to an ``AccountLinkSession``'s fetch closure, so it can say where it is.
///
/// The return grace (see ``AccountLinkSession/applicationDidBecomeActive()``) guards only the
/// platform's authorization: the person may come back without acting. Once the authorization
/// has answered, the host backend's round trip is bounded by the session's deadline alone.
public struct AccountLinkProgress: Sendable {
    private let finished: @Sendable () -> Void

    init(_ finished: @escaping @Sendable () -> Void) {
        self.finished = finished
    }

    /// The platform's authorization answered; from now on only the host backend is awaited.
    public func authorizationFinished() {
        finished()
    }
}
