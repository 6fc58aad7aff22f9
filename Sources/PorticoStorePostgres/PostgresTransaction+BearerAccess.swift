import Foundation
import PorticoStore
import PorticoStoreSQL

// A bearer token's revocation standing and its user, in one statement.
extension PostgresTransaction {
    private static let standingColumns = userColumnList.split(separator: ",").map {
        "u.\($0.trimmingCharacters(in: .whitespaces))"
    }

    func accessTokenStanding(id: String, userID: String, clientID: String, issuedAt: Date) throws -> (
        isRevoked: Bool, user: UserRecord?
    ) {
        let columns = Self.standingColumns
        // One row whatever the user: the left join leaves the user's columns null when none.
        let standing = try first(
            """
            SELECT \(columns.joined(separator: ", ")),
                (EXISTS (SELECT 1 FROM access_token_revocations WHERE jti = ?)
                OR EXISTS (SELECT 1 FROM grant_revocations WHERE user_id = ? AND client_id = ? AND revoked_at >= ?)
                OR NOT EXISTS (SELECT 1 FROM clients WHERE id = ? AND suspended_at IS NULL))
                AS revoked
            FROM (SELECT 1) AS one LEFT JOIN users AS u ON u.id = ?
            """,
            [.text(id), .text(userID), .text(clientID), .date(issuedAt), .text(clientID), .text(userID)]
        ) { row in
            (isRevoked: try row.bool("revoked"), user: try row.isNull("id") ? nil : try Self.decodeUser(row))
        }
        return standing ?? (isRevoked: false, user: nil)
    }
}
