/// The outcome of presenting an authorization code, decided atomically by the store.
public enum CodeRedemption: Sendable, Hashable {
    /// The code was unused and unexpired and is now consumed; issue tokens for it.
    case redeemed(AuthorizationCode)
    /// The code was redeemed before: refuse, and revoke what it issued
    /// (``AuthorizationCode/issuedRefreshFamilyID``, ``AuthorizationCode/issuedAccessTokenID``).
    case alreadyUsed(AuthorizationCode)
    /// The code was never issued, or was purged.
    case notFound
    /// The code was issued but has expired unused.
    case expired
}
