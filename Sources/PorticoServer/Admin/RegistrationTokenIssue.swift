import Foundation
import PorticoCrypto
import PorticoStore

/// `portico registration-token create`: an initial access token for dynamic client
/// registration (RFC 7591 §3), shown once and stored only as its SHA-256.
public struct RegistrationTokenIssue: Sendable {
    /// How many registrations it allows; nil for no limit.
    public var uses: Int?
    /// How long it is valid; nil for no expiry.
    public var lifetime: TimeInterval?

    /// An issue of a token with these limits.
    public init(uses: Int? = nil, lifetime: TimeInterval? = nil) {
        self.uses = uses
        self.lifetime = lifetime
    }

    /// Stores a new token and returns it in plain text, the only time anybody sees it.
    public func create(in store: any Store, now: Date = Date()) throws(AdminError) -> String {
        if let uses, uses < 1 { throw .invalid("--uses must be at least 1") }
        let token = SecureRandom.token()
        do {
            try store.transaction { transaction in
                try transaction.insertInitialAccessToken(
                    hash: SecretHash.digest(token), uses: uses, expiresAt: lifetime.map { now.addingTimeInterval($0) },
                    createdAt: now)
                try transaction.append(
                    AuditEvent(actor: "cli", action: "registration_token.create", subject: SecretHash.reference(token)))
            }
        } catch {
            throw AdminError.wrapping(error)
        }
        return token
    }
}
