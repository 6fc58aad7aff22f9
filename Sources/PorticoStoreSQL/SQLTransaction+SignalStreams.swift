import Foundation
import PorticoStore

// Shared Signals streams, excluded subjects and the poll queue (migration 16).
@usableFromInline let signalStreamColumns = """
    client_id, stream_id, delivery_method, endpoint_url, authorization_header, events_requested, description,
    status, status_reason, created_at, updated_at
    """

extension SQLTransaction {
    @usableFromInline static func decodeSignalStream(_ row: Row) throws -> SignalStream {
        SignalStream(
            clientID: try row.text("client_id"), id: try row.text("stream_id"),
            deliveryMethod: try row.text("delivery_method"), endpointURL: try row.optionalText("endpoint_url"),
            authorizationHeader: try row.optionalText("authorization_header"),
            eventsRequested: StringList.decode(try row.text("events_requested")) ?? [],
            description: try row.optionalText("description"), status: try row.text("status"),
            statusReason: try row.optionalText("status_reason"), createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"))
    }

    /// ``SignalStreamStorage/insertSignalStream(_:)``, for every SQL backend.
    @inlinable public func insertSignalStream(_ stream: SignalStream) throws {
        try write(
            "INSERT INTO signal_streams (\(signalStreamColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(stream.clientID), .text(stream.id), .text(stream.deliveryMethod), .text(stream.endpointURL),
                .text(stream.authorizationHeader), .text(StringList.encode(stream.eventsRequested)),
                .text(stream.description), .text(stream.status), .text(stream.statusReason),
                .date(stream.createdAt), .date(stream.updatedAt),
            ], referring: "client")
    }

    /// ``SignalStreamStorage/signalStream(clientID:)``, for every SQL backend.
    @inlinable public func signalStream(clientID: String) throws -> SignalStream? {
        try first(
            "SELECT \(signalStreamColumns) FROM signal_streams WHERE client_id = ?", [.text(clientID)],
            Self.decodeSignalStream)
    }

    /// ``SignalStreamStorage/updateSignalStream(_:)``, for every SQL backend.
    @inlinable public func updateSignalStream(_ stream: SignalStream) throws -> Bool {
        try write(
            """
            UPDATE signal_streams SET delivery_method = ?, endpoint_url = ?, authorization_header = ?,
                events_requested = ?, description = ?, status = ?, status_reason = ?, updated_at = ?
            WHERE client_id = ?
            """,
            [
                .text(stream.deliveryMethod), .text(stream.endpointURL), .text(stream.authorizationHeader),
                .text(StringList.encode(stream.eventsRequested)), .text(stream.description), .text(stream.status),
                .text(stream.statusReason), .date(stream.updatedAt), .text(stream.clientID),
            ]) > 0
    }

    /// ``SignalStreamStorage/deleteSignalStream(clientID:)``, for every SQL backend.
    @inlinable public func deleteSignalStream(clientID: String) throws -> Bool {
        try write("DELETE FROM signal_streams WHERE client_id = ?", [.text(clientID)]) > 0
    }

    /// ``SignalStreamStorage/excludeSignalSubject(clientID:userID:at:)``, for every SQL backend.
    @inlinable public func excludeSignalSubject(clientID: String, userID: String, at time: Date) throws -> Bool {
        try write(
            """
            INSERT INTO signal_stream_exclusions (client_id, user_id, created_at) VALUES (?, ?, ?)
            ON CONFLICT (client_id, user_id) DO NOTHING
            """,
            [.text(clientID), .text(userID), .date(time)], referring: "stream") > 0
    }

    /// ``SignalStreamStorage/includeSignalSubject(clientID:userID:)``, for every SQL backend.
    @inlinable public func includeSignalSubject(clientID: String, userID: String) throws -> Bool {
        try write(
            "DELETE FROM signal_stream_exclusions WHERE client_id = ? AND user_id = ?",
            [.text(clientID), .text(userID)]) > 0
    }

    /// ``SignalStreamStorage/isSignalSubjectExcluded(clientID:userID:)``, for every SQL backend.
    @inlinable public func isSignalSubjectExcluded(clientID: String, userID: String) throws -> Bool {
        try first(
            "SELECT 1 FROM signal_stream_exclusions WHERE client_id = ? AND user_id = ?",
            [.text(clientID), .text(userID)]
        ) { _ in true } ?? false
    }

    /// ``SignalStreamStorage/enqueuePolledSignal(_:)``, for every SQL backend.
    @inlinable public func enqueuePolledSignal(_ signal: PolledSignal) throws {
        try write(
            "INSERT INTO signal_poll_queue (client_id, jti, payload, created_at) VALUES (?, ?, ?, ?)",
            [.text(signal.clientID), .text(signal.jti), .text(signal.payload), .date(signal.createdAt)],
            referring: "stream")
    }

    /// ``SignalStreamStorage/polledSignals(clientID:limit:)``, for every SQL backend.
    @inlinable public func polledSignals(clientID: String, limit: Int) throws -> [PolledSignal] {
        try all(
            """
            SELECT client_id, jti, payload, created_at FROM signal_poll_queue WHERE client_id = ?
            ORDER BY jti LIMIT ?
            """,
            [.text(clientID), .int(max(0, limit))]
        ) { row in
            PolledSignal(
                clientID: try row.text("client_id"), jti: try row.text("jti"), payload: try row.text("payload"),
                createdAt: try row.date("created_at"))
        }
    }

    /// ``SignalStreamStorage/polledSignalCount(clientID:)``, for every SQL backend.
    @inlinable public func polledSignalCount(clientID: String) throws -> Int {
        try first("SELECT count(*) AS n FROM signal_poll_queue WHERE client_id = ?", [.text(clientID)]) {
            try $0.int("n")
        } ?? 0
    }

    /// ``SignalStreamStorage/acknowledgePolledSignals(clientID:jtis:)``, for every SQL backend.
    @inlinable public func acknowledgePolledSignals(clientID: String, jtis: [String]) throws -> Int {
        var removed = 0
        for jti in jtis {
            removed += try write(
                "DELETE FROM signal_poll_queue WHERE client_id = ? AND jti = ?", [.text(clientID), .text(jti)])
        }
        return removed
    }
}
