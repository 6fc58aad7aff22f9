import Foundation
import PorticoStore
import PorticoStoreSQL

// Many rows at once: SQLite runs prepared inserts in one transaction at local-disk speed, so
// one statement per row is already the fast way.
extension SQLiteTransaction {
    func insert(users: [UserRecord]) throws {
        for user in users { try insert(user) }
    }

    func insert(families: [RefreshFamilyStart]) throws {
        for start in families { try insert(start.family, token: start.token, expiresAt: start.expiresAt) }
    }
}
