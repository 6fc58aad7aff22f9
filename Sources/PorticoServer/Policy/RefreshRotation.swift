import Foundation
import PorticoStore

/// The outcome of presenting a refresh token for rotation, decided by the provider's policy on the store's compare-and-swap
/// (``RefreshTokenPolicy/rotate(_:in:now:replacement:)``).
public enum RefreshRotation: Sendable, Hashable {
    /// The token was current: it is now replaced and `successor` is current.
    case rotated(family: RefreshFamily, successor: RefreshToken)
    /// The token is the one the family's last rotation replaced, at `rotatedAt`, and what
    /// replaced it has not been used since. Either the client lost the response and retries
    /// (the provider's grace period may then supersede the unused token, see
    /// ``RefreshTokenPolicy/retry(family:rotatedAt:in:now:)``) or a copy
    /// is being replayed. Nothing was changed.
    case previous(family: RefreshFamily, rotatedAt: Date)
    /// The token names the family but is neither its current token nor the one just replaced:
    /// an older token used again, so someone holds a copy (RFC 9700 §4.14.2). Nothing was
    /// changed; the provider revokes the family.
    case reused(family: RefreshFamily)
    /// The family has been revoked; nothing was changed.
    case revoked(family: RefreshFamily)
    /// The token has expired; nothing was changed.
    case expired(family: RefreshFamily)
    /// No such token.
    case notFound

    /// The presented token's family, whatever became of the token; nil when there is no such
    /// token.
    public var family: RefreshFamily? {
        switch self {
        case .rotated(let family, _), .previous(let family, _), .reused(let family), .revoked(let family),
            .expired(let family):
            family
        case .notFound: nil
        }
    }
}
