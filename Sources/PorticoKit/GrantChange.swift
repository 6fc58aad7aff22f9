/// A change of the signed-in state, as ``AuthorizationManager/grantChanges`` reports it: the
/// Swift form of AppAuth's state-change delegate.
public enum GrantChange: Sendable, Hashable {
    /// Someone signed in interactively (or through device login); a new grant is stored.
    case signedIn
    /// The grant was refreshed silently; the access token is new.
    case refreshed
    /// The grant is gone: the app signed out, or the provider no longer honours it.
    case signedOut
}
