import Foundation

/// A person's authenticator app (two-step verification with TOTP, RFC 6238): pending while the
/// person has been shown the secret but has not yet typed a first code, confirmed after.
///
/// The secret is never stored in plain text: ``sealedSecret`` is it sealed with a key derived
/// from the key-encryption key that also seals the signing keys, so a copy of the database alone
/// cannot produce codes.
public struct TwoStepEnrollment: Sendable, Hashable {
    /// Whose it is.
    public var userID: String
    /// The TOTP secret, sealed (never plain).
    public var sealedSecret: String
    /// When the secret was made.
    public var createdAt: Date
    /// When the person confirmed it with a first code; nil while pending.
    public var confirmedAt: Date?
    /// The time step of the last code accepted, so that no code is accepted twice.
    public var lastUsedStep: Int64?

    /// Whether the second step is required at sign-in.
    public var isConfirmed: Bool { confirmedAt != nil }

    /// An enrollment record.
    public init(
        userID: String, sealedSecret: String, createdAt: Date, confirmedAt: Date? = nil, lastUsedStep: Int64? = nil
    ) {
        self.userID = userID
        self.sealedSecret = sealedSecret
        self.createdAt = createdAt
        self.confirmedAt = confirmedAt
        self.lastUsedStep = lastUsedStep
    }
}
