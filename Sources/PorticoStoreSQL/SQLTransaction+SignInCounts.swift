import Foundation
import PorticoStore

// Sign-ins per app per day (migration 24).
extension SQLTransaction {
    /// ``SignInCountStorage/countSignIn(clientID:at:)``, for every SQL backend: one upsert.
    @inlinable public func countSignIn(clientID: String, at time: Date) throws {
        try write(
            """
            INSERT INTO client_sign_in_days (client_id, day, sign_ins) VALUES (?, ?, 1)
            ON CONFLICT (client_id, day) DO UPDATE SET sign_ins = client_sign_in_days.sign_ins + 1
            """,
            [.text(clientID), .integer(Int64(DailySignIns.day(of: time)))], referring: "client")
    }

    /// ``SignInCountStorage/signInsPerDay(clientID:from:)``, for every SQL backend.
    @inlinable public func signInsPerDay(clientID: String, from firstDay: Int) throws -> [DailySignIns] {
        try all(
            "SELECT day, sign_ins FROM client_sign_in_days WHERE client_id = ? AND day >= ? ORDER BY day",
            [.text(clientID), .integer(Int64(firstDay))]
        ) { row in
            DailySignIns(day: try row.int("day"), count: try row.int("sign_ins"))
        }
    }
}
