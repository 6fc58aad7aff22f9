import Foundation
import PorticoStore

// The first signing key of an algorithm.
extension SQLTransaction {
    /// One statement, an insert that does nothing on the partial unique index
    /// `signing_keys_current`: on SQLite the single writer makes it atomic; on PostgreSQL an
    /// insert that meets another transaction's uncommitted current key waits for it, and does
    /// nothing (0 rows) if that one commits, inserts if it rolls back.
    @inlinable public func insertSigningKeyIfNoneCurrent(_ key: StoredSigningKey) throws -> Bool {
        try key.checkFirstKey()
        return try write(
            """
            INSERT INTO signing_keys (kid, algorithm, private_key_pem, state, is_current, created_at, retired_at)
            VALUES (?, ?, ?, ?, \(dialect.trueLiteral), ?, NULL)
            ON CONFLICT (algorithm) WHERE \(dialect.isTrue("is_current")) DO NOTHING
            """,
            [
                .text(key.id), .text(key.algorithm), .text(key.privateKeyPEM), .text(key.state.rawValue),
                .date(key.createdAt),
            ]
        ) == 1
    }
}
