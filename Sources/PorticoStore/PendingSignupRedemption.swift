/// What presenting a sign-up confirmation token did.
///
/// Redemption takes the pending sign-up away in one atomic step, so two submissions of the
/// same link (or two nodes) cannot both create the account.
public enum PendingSignupRedemption: Sendable, Hashable {
    /// The token was live; the pending sign-up is gone from the store and returned.
    case redeemed(PendingSignup)
    /// No such token: never issued, used already, replaced by a newer sign-up, or purged.
    case notFound
    /// The token is past its expiry (its pending sign-up is gone now too).
    case expired
}
