import Foundation
import PorticoStore

// The first signing key of an algorithm.
extension PostgresTransaction {
    /// An insert that meets another transaction's uncommitted current key of the algorithm on
    /// the partial unique index `signing_keys_current` waits for it: if it commits, this one does
    /// nothing (0 rows); if it rolls back, this one inserts.
    func insertSigningKeyIfNoneCurrent(_ key: StoredSigningKey) throws -> Bool {
        guard key.isCurrent, key.state == .active else {
            throw StoreError.invalidArgument("a first signing key must be active and current")
        }
        return try write(
            """
            INSERT INTO signing_keys (kid, algorithm, private_key_pem, state, is_current, created_at, retired_at)
            VALUES (?, ?, ?, ?, true, ?, NULL)
            ON CONFLICT (algorithm) WHERE is_current DO NOTHING
            """,
            [
                .text(key.id), .text(key.algorithm), .text(key.privateKeyPEM), .text(key.state.rawValue),
                .date(key.createdAt),
            ]
        ) == 1
    }
}
