import Foundation

/// What a caller of a refresh needs from the grant: an access token (the grant's own, or one
/// for a resource server) that is not the one a backend refused and lives long enough.
///
/// A flight checks it against the stored grant before it sends anything (someone may have
/// refreshed meanwhile); a caller that joined someone else's flight checks the result with
/// ``isAnswered(by:)`` and runs a flight of its own when it is not.
struct RefreshNeed: Sendable {
    /// How long the token must still live.
    var minimumLifetime: TimeInterval = AuthorizationManager.expiryMargin
    /// The access token a backend refused: never good enough.
    var refused: String?
    /// The resource server (RFC 8707) the token is for; nil for the grant's own token.
    var resource: String?

    /// The token this need is about in `grant`, with its expiry.
    func token(in grant: StoredGrant) -> (value: String, expiresAt: Date?)? {
        guard let resource else { return (grant.accessToken, grant.expiresAt) }
        return grant.resourceTokens[resource].map { ($0.accessToken, $0.expiresAt) }
    }

    /// Whether `grant` already has the token: present, not refused, fresh for the lifetime.
    func isMet(by grant: StoredGrant, at now: Date) -> Bool {
        guard let token = token(in: grant), token.value != refused else { return false }
        guard let expiresAt = token.expiresAt else { return true }
        return now.addingTimeInterval(minimumLifetime) < expiresAt
    }

    /// Whether a flight's result will do: the token is there, not the refused one, and good
    /// for the shorter of the lifetime asked for and the usual minute (a lifetime longer than
    /// the provider's tokens live is never met; such a call refreshes once and takes what it
    /// gets). A flight someone else started for another token leaves this one as it was.
    func isAnswered(by grant: StoredGrant, at now: Date) -> Bool {
        guard let token = token(in: grant), token.value != refused else { return false }
        guard let expiresAt = token.expiresAt else { return true }
        return now.addingTimeInterval(min(minimumLifetime, AuthorizationManager.expiryMargin)) < expiresAt
    }
}

/// Whether a flight has begun its refresh or was abandoned while it waited for the store's
/// lease: whichever is claimed first wins.
final class FlightGate: Sendable {
    private let state = LockedState<Int>(0)

    /// Claims the start; false when the wait was abandoned.
    func begin() -> Bool {
        state.withLock { current in
            guard current == 0 else { return false }
            current = 1
            return true
        }
    }

    /// Abandons the wait; false when the refresh already began (it then runs to its end).
    func abandon() -> Bool {
        state.withLock { current in
            guard current == 0 else { return false }
            current = 2
            return true
        }
    }
}
