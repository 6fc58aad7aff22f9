/// The outcome of presenting a refresh token for rotation, decided atomically by the store.
public enum RefreshRotation: Sendable, Hashable {
    /// The token was current: it is now rotated and `successor` (the replacement) is current.
    case rotated(family: RefreshFamily, successor: RefreshToken)
    /// The token had already been rotated: someone holds a copy. `token.rotatedAt` says when,
    /// so the provider can allow a short grace period (a retried request) or revoke `family`.
    case reused(family: RefreshFamily, token: RefreshToken)
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
        case .rotated(let family, _), .reused(let family, _), .revoked(let family), .expired(let family): family
        case .notFound: nil
        }
    }
}
