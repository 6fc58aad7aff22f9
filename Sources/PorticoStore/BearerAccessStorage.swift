import Foundation

/// What a resource request with a bearer token needs from the store, read at once.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol BearerAccessStorage {
    /// Whether the access token `id` is revoked, exactly as
    /// ``AccessTokenRevocationStorage/isAccessTokenRevoked(id:userID:clientID:issuedAt:)``
    /// answers, and the user `userID` (nil when there is none), read together by one atomic
    /// read. Userinfo and the profile endpoint need both on every request; on a database across
    /// the network one read is one round trip, and with ``Store/readOne(_:)`` it needs no
    /// transaction around it.
    func accessTokenStanding(id: String, userID: String, clientID: String, issuedAt: Date) throws -> (
        isRevoked: Bool, user: UserRecord?
    )
}
