/// What presenting a password-reset token did.
///
/// Redemption is one atomic step, so two submissions of the same link cannot both change the
/// password.
public enum PasswordResetRedemption: Sendable, Hashable {
    /// The token was live and is now used up; the reset it belonged to.
    case redeemed(PasswordReset)
    /// No such token (never issued, purged, or its account removed).
    case notFound
    /// The token was used before.
    case alreadyUsed
    /// The token is past its expiry.
    case expired
}
