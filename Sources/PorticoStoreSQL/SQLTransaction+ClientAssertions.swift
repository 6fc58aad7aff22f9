import Foundation
import PorticoStore

// Seen client-assertion jtis (migration 9).
extension SQLTransaction {
    /// Forgets expired jtis, then records this one; false when the client already used it.
    @inlinable public func recordClientAssertion(clientID: String, jti: String, expiresAt: Date, now: Date) throws
        -> Bool
    {
        try write("DELETE FROM client_assertions WHERE expires_at <= ?", [.date(now)])
        let inserted = try write(
            """
            INSERT INTO client_assertions (client_id, jti_hash, expires_at) VALUES (?, ?, ?)
            ON CONFLICT (client_id, jti_hash) DO NOTHING
            """,
            [.text(clientID), .digest(jti), .date(expiresAt)], referring: "client")
        return inserted > 0
    }
}
