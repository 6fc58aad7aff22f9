import Foundation
import PorticoStore

// The first signing key of an algorithm.
extension SQLiteTransaction {
    /// One writer at a time makes this atomic on SQLite already; the upsert on the partial
    /// unique index `signing_keys_current` says the same thing the PostgreSQL backend does.
    func insertSigningKeyIfNoneCurrent(_ key: StoredSigningKey) throws -> Bool {
        guard key.isCurrent, key.state == .active else {
            throw StoreError.invalidArgument("a first signing key must be active and current")
        }
        return try write(
            """
            INSERT INTO signing_keys (kid, algorithm, private_key_pem, state, is_current, created_at, retired_at)
            VALUES (?, ?, ?, ?, 1, ?, NULL)
            ON CONFLICT (algorithm) WHERE is_current = 1 DO NOTHING
            """,
            [
                .text(key.id), .text(key.algorithm), .text(key.privateKeyPEM), .text(key.state.rawValue),
                .date(key.createdAt),
            ]
        ) == 1
    }
}
