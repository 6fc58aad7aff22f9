import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// What every protocol endpoint does around its own logic: turn failures into RFC 6749 §5.2
/// JSON and mark token-bearing answers as never cacheable.
///
/// Why one place: a handler that forgot to catch a store error would otherwise leak the HTTP
/// server's plain-text 500, and a token response without `Cache-Control: no-store` could sit in
/// a proxy. Endpoints wrap their body in ``respond(_:)`` and build answers with ``json(_:)``.
enum OAuthEndpoint {
    /// Runs `body`; an ``OAuthError`` becomes its JSON response, a busy or unreachable database a 503
    /// `temporarily_unavailable`, a value the database cannot hold (a check before the store
    /// missed it) the request's own `invalid_request`, anything else a logged `server_error`.
    static func respond(_ body: () throws -> Response) -> Response {
        do {
            return try body()
        } catch let error as OAuthError {
            return error.response()
        } catch let error as StoreError {
            if error.isTemporary {
                var response = OAuthError(
                    code: "temporarily_unavailable", description: "The server is busy; try again shortly.",
                    status: .serviceUnavailable
                ).response()
                response.headers["Retry-After"] = "1"
                return response
            }
            if case .invalidArgument = error {
                logFailure(error)
                return OAuthError.invalidRequest("A value in the request cannot be stored.").response()
            }
            logFailure(error)
            return OAuthError.serverError().response()
        } catch {
            logFailure(error)
            return OAuthError.serverError().response()
        }
    }

    /// A `200` JSON answer that no cache may keep (RFC 6749 §5.1).
    static func json(_ members: [String: JSONValue]) -> Response {
        var response = Response.json(raw: JSONValue.object(members).jsonString)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Pragma"] = "no-cache"
        return response
    }

    /// Writes one JSON line to stderr for a failure that is ours, not the client's.
    static func logFailure(_ error: any Error) {
        let line: JSONValue = [
            "level": "error", "component": "protocol", "message": .string(String(describing: error)),
        ]
        FileHandle.standardError.write(Data((line.jsonString + "\n").utf8))
    }
}
