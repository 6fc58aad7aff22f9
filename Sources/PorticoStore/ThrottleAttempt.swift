import Foundation

/// One counted attempt at something that is rate limited (a failed sign-in, a password-reset
/// request), kept in the shared database so that every node sees the same counts.
///
/// ``key`` names what is counted (an account, an address, a form); the store keeps only its
/// SHA-256, so the table holds no e-mail or IP addresses in the clear.
public struct ThrottleAttempt: Sendable, Hashable {
    /// Identifies this attempt, so that one reserved ahead of a check can be taken back.
    public var id: String
    /// What is counted, such as `sign-in:account:ann@example.com`; stored hashed.
    public var key: String
    /// When it happened.
    public var attemptedAt: Date
    /// When it no longer counts and may be purged.
    public var expiresAt: Date

    /// An attempt ready to insert.
    public init(id: String = RecordIdentifier.random(), key: String, attemptedAt: Date, expiresAt: Date) {
        self.id = id
        self.key = key
        self.attemptedAt = attemptedAt
        self.expiresAt = expiresAt
    }
}
