import Foundation
import PorticoStore

// Mini-programs of host apps (migration 7).
extension PostgresTransaction {
    private static let miniProgramColumns = "client_id, host_client_id, created_at, disabled_at"

    private static func decodeMiniProgram(_ row: PostgresRow) throws -> MiniProgram {
        MiniProgram(
            clientID: row.text(0), hostClientID: row.text(1), createdAt: try row.date(2),
            disabledAt: try row.optionalDate(3))
    }

    func insert(_ miniProgram: MiniProgram) throws {
        try write(
            "INSERT INTO mini_programs (\(Self.miniProgramColumns)) VALUES (?, ?, ?, ?)",
            [
                .text(miniProgram.clientID), .text(miniProgram.hostClientID), .date(miniProgram.createdAt),
                .date(miniProgram.disabledAt),
            ], referring: "client")
    }

    func miniProgram(clientID: String) throws -> MiniProgram? {
        try first(
            "SELECT \(Self.miniProgramColumns) FROM mini_programs WHERE client_id = ?", [.text(clientID)],
            Self.decodeMiniProgram)
    }

    func miniPrograms(hostClientID: String) throws -> [MiniProgram] {
        try all(
            "SELECT \(Self.miniProgramColumns) FROM mini_programs WHERE host_client_id = ? ORDER BY created_at, client_id",
            [.text(hostClientID)], Self.decodeMiniProgram)
    }

    func disableMiniPrograms(hostClientID: String, now: Date) throws -> Int {
        try write(
            "UPDATE mini_programs SET disabled_at = ? WHERE host_client_id = ? AND disabled_at IS NULL",
            [.date(now), .text(hostClientID)])
    }
}
