import Foundation
import PorticoCrypto
import PorticoStore

/// How the refresh tokens of one family follow from each other.
///
/// Only the first token of a family is random. Every later one is derived from the token it
/// replaces: HMAC-SHA-256 keyed with the family's id (128 random bits that never leave the
/// server: no token, response or page carries it) over a label and the replaced token. Nobody
/// can compute a successor without both the plain token — which the store never keeps — and the
/// family id — which the client never sees — so derived tokens are as unguessable as random
/// ones.
///
/// Why derive at all: the reuse grace period. When a client loses the response to a refresh and
/// presents the same token `P` again, Portico must hand out a working token, but the store only
/// holds hashes and cannot rotate the successor it issued without the plain value. Derivation
/// recovers that value from `P` itself: `successor(of: P)` is the token issued when `P` was
/// rotated, so the grant can rotate *it* again (the unused successor is simply superseded) and
/// return a fresh replacement. Two labels keep the two kinds of step apart:
/// ``successor(of:)`` for an ordinary rotation and ``replacement(of:)`` for one forced by a
/// retried request. Walking from `P`, a token whose recorded successor is its *replacement*
/// was superseded by an earlier retry, so the walk goes on; a token whose successor is its
/// ordinary *successor* was presented by the client itself, which proves the client received
/// it, and then `P` coming back is a genuine reuse.
struct RefreshTokenChain {
    /// The most superseded tokens a retry may walk past (retries of one lost response).
    static let maximumRetries = 8

    private let key: [UInt8]

    /// The chain of `family`.
    init(family: RefreshFamily) {
        key = Array(family.id.utf8)
    }

    /// The first token of a new family: random, 256 bits.
    static func firstToken() -> String {
        SecureRandom.token()
    }

    /// Starts a refresh-token family for a grant a person just gave `client` (code or device
    /// grant), when the client may use refresh tokens: stores the family and its first token
    /// (hashed) in `transaction` and returns the token and the family's id; nil otherwise.
    static func beginFamily(
        for client: Client, userID: String, scopes: [String], authTime: Date, now: Date, lifetime: TimeInterval,
        in transaction: any StoreTransaction
    ) throws -> (token: String, familyID: String)? {
        guard client.allowedGrantTypes.contains("refresh_token") else { return nil }
        let family = RefreshFamily(
            clientID: client.id, userID: userID, scopes: scopes, authTime: authTime, createdAt: now)
        let token = firstToken()
        try transaction.insert(family)
        try transaction.insert(
            RefreshToken(token: token, familyID: family.id, createdAt: now, expiresAt: now.addingTimeInterval(lifetime))
        )
        return (token, family.id)
    }

    /// The token issued when `token` is rotated in the ordinary way.
    func successor(of token: String) -> String {
        derive(label: "successor", from: token)
    }

    /// The token issued when `token`, still unused, is superseded because the token before it
    /// was presented again within the grace period.
    func replacement(of token: String) -> String {
        derive(label: "replacement", from: token)
    }

    private func derive(label: String, from token: String) -> String {
        var message = Array(label.utf8)
        message.append(0)
        message.append(contentsOf: token.utf8)
        return Base64URL.encode(HMAC.authenticationCode(for: message, key: key))
    }
}
