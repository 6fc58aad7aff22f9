import Foundation
import PorticoStore

// Mini-programs of host apps (migration 7).
@usableFromInline let miniProgramColumns = "client_id, host_client_id, created_at, disabled_at"

@usableFromInline func decodeMiniProgram(_ row: some SQLRow) throws -> MiniProgram {
    MiniProgram(
        clientID: try row.text("client_id"), hostClientID: try row.text("host_client_id"),
        createdAt: try row.date("created_at"), disabledAt: try row.optionalDate("disabled_at"))
}

extension SQLTransaction {
    /// Records a mini-program of a host app.
    @inlinable public func insert(_ miniProgram: MiniProgram) throws {
        try write(
            "INSERT INTO mini_programs (\(miniProgramColumns)) VALUES (?, ?, ?, ?)",
            [
                .text(miniProgram.clientID), .text(miniProgram.hostClientID), .date(miniProgram.createdAt),
                .date(miniProgram.disabledAt),
            ], referring: "client")
    }

    /// The mini-program that is this client, if it is one.
    @inlinable public func miniProgram(clientID: String) throws -> MiniProgram? {
        try first(
            "SELECT \(miniProgramColumns) FROM mini_programs WHERE client_id = ?", [.text(clientID)],
            decodeMiniProgram)
    }

    /// A host app's mini-programs, oldest first.
    @inlinable public func miniPrograms(hostClientID: String) throws -> [MiniProgram] {
        try all(
            "SELECT \(miniProgramColumns) FROM mini_programs WHERE host_client_id = ? ORDER BY created_at, client_id",
            [.text(hostClientID)], decodeMiniProgram)
    }

    /// Disables a host app's mini-programs that are not yet disabled; returns how many.
    @inlinable public func disableMiniPrograms(hostClientID: String, now: Date) throws -> Int {
        try write(
            "UPDATE mini_programs SET disabled_at = ? WHERE host_client_id = ? AND disabled_at IS NULL",
            [.date(now), .text(hostClientID)])
    }
}
