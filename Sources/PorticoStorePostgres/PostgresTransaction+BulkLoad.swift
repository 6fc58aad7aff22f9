import Foundation
import PorticoStore
import PorticoStoreSQL

// Many rows at once: multi-row INSERTs of up to `bulkRows` rows each (PostgreSQL takes at most
// 65,535 parameters a statement), a round trip per thousand rows instead of one per row.
extension PostgresTransaction {
    /// Rows per multi-row INSERT.
    static let bulkRows = 1_000

    func insert(users: [UserRecord]) throws {
        for start in stride(from: 0, to: users.count, by: Self.bulkRows) {
            let chunk = users[start..<min(users.count, start + Self.bulkRows)]
            var values: [PostgresValue] = []
            values.reserveCapacity(chunk.count * 10)
            for user in chunk {
                values += [
                    .text(user.id), .text(user.email), .text(UserRecord.normalizedEmail(user.email)), .text(user.name),
                    .text(user.postalCode), .text(user.passwordHash), .bool(user.isDisabled), .date(user.createdAt),
                    .date(user.updatedAt), .bool(user.isEmailVerified),
                ]
            }
            try write(
                """
                INSERT INTO users (id, email, email_normalized, name, postal_code, password_hash, disabled, created_at,
                    updated_at, email_verified)
                VALUES \(Self.rows(chunk.count, of: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"))
                """, values)
        }
    }

    func insert(families: [RefreshFamilyStart]) throws {
        for start in stride(from: 0, to: families.count, by: Self.bulkRows) {
            let chunk = families[start..<min(families.count, start + Self.bulkRows)]
            var values: [PostgresValue] = []
            values.reserveCapacity(chunk.count * 10)
            for item in chunk {
                let family = item.family
                values += [
                    .text(family.id), .text(family.clientID), .text(family.userID), .list(family.scopes),
                    .date(family.authTime), .date(family.createdAt), .date(family.revokedAt), .digest(item.token),
                    .date(family.createdAt), .date(item.expiresAt),
                ]
            }
            try write(
                """
                INSERT INTO refresh_families (\(Self.refreshFamilyAndTokenColumns))
                VALUES \(Self.rows(chunk.count, of: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)"))
                """, values, referring: "client or user")
        }
    }

    /// `count` copies of `row`, separated by commas.
    private static func rows(_ count: Int, of row: String) -> String {
        Array(repeating: row, count: count).joined(separator: ", ")
    }
}
