import Foundation
import PorticoStore
import PorticoStoreSQL

// A bearer token's revocation standing and its user: two lookups in the caller's transaction,
// which SQLite answers from local pages.
extension SQLiteTransaction {
    func accessTokenStanding(id: String, userID: String, clientID: String, issuedAt: Date) throws -> (
        isRevoked: Bool, user: UserRecord?
    ) {
        (
            isRevoked: try isAccessTokenRevoked(id: id, userID: userID, clientID: clientID, issuedAt: issuedAt),
            user: try user(id: userID)
        )
    }
}
