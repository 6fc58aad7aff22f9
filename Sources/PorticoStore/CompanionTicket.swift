import Foundation

/// A consent the companion must ask the person for before an app's authorization code is
/// issued: what `POST /oauth/companion/authorize` hands out and `POST /oauth/companion/consent`
/// redeems, once.
///
/// Only the ticket's SHA-256 is kept (``hashedTicket``); it is bound to the companion session
/// that asked and to the exact authorization request (kept sealed by the provider in
/// ``request``), and it expires.
public struct CompanionTicket: Sendable, Hashable {
    /// SHA-256 of the ticket, base64url.
    public let hashedTicket: String
    /// The companion session it was handed to; only that session may redeem it.
    public var sessionID: String
    /// What the person is asked: `consent` or `continue` (a remembered consent confirmed).
    public var kind: String
    /// The app's authorization request, as the provider sealed it (opaque to the store).
    public var request: String
    /// When it was handed out.
    public var createdAt: Date
    /// When it stops being redeemable.
    public var expiresAt: Date
    /// When it was redeemed; nil while unused.
    public var consumedAt: Date?

    /// A ticket ready to insert for the plain `ticket`; only its hash is kept.
    public init(ticket: String, sessionID: String, kind: String, request: String, createdAt: Date, expiresAt: Date) {
        self.init(
            hashedTicket: SecretHash.reference(ticket), sessionID: sessionID, kind: kind, request: request,
            createdAt: createdAt, expiresAt: expiresAt, consumedAt: nil)
    }

    /// A ticket as stored (backends only).
    public init(
        hashedTicket: String, sessionID: String, kind: String, request: String, createdAt: Date, expiresAt: Date,
        consumedAt: Date?
    ) {
        self.hashedTicket = hashedTicket
        self.sessionID = sessionID
        self.kind = kind
        self.request = request
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.consumedAt = consumedAt
    }
}
