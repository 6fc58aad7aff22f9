import Foundation
import PorticoStore

// Pushed authorization requests (migration 20).
extension SQLTransaction {
    /// ``PushedRequestStorage/insertPushedRequest(_:reference:)``.
    @inlinable public func insertPushedRequest(_ request: PushedAuthorizationRequest, reference: String) throws {
        try write(
            "INSERT INTO pushed_requests (uri_hash, client_id, parameters, expires_at) VALUES (?, ?, ?, ?)",
            [.digest(reference), .text(request.clientID), .text(request.parameters), .date(request.expiresAt)],
            referring: "client")
    }

    /// ``PushedRequestStorage/takePushedRequest(reference:clientID:now:)``: one DELETE …
    /// RETURNING whose condition the database checks as it deletes; whichever of two racing
    /// deletes removes the row has it.
    @inlinable public func takePushedRequest(reference: String, clientID: String, now: Date) throws
        -> PushedAuthorizationRequest?
    {
        try first(
            """
            DELETE FROM pushed_requests WHERE uri_hash = ? AND client_id = ? AND expires_at > ?
            RETURNING client_id, parameters, expires_at
            """,
            [.digest(reference), .text(clientID), .date(now)]
        ) { row in
            PushedAuthorizationRequest(
                clientID: try row.text("client_id"), parameters: try row.text("parameters"),
                expiresAt: try row.date("expires_at"))
        }
    }
}
