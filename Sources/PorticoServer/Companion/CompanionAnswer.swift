import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// The JSON the companion endpoints answer with (the contract `portico-agent` reads):
///
/// - a code: `200 {"code": "…", "state": "…", "iss": "…"}` (`state` only when the app sent one),
///   which the agent hands to the app as if it had come to its redirect URI;
/// - a ticket: `200 {"consent_required": true, "ticket": "…", "kind": "consent" | "continue",
///   "expires_in": 300, "client": {"client_id", "name", "logo_uri", "policy_uri"},
///   "scopes": [{"name", "description"}], "granted_scopes": [{"name", "description"}],
///   "user": {"name", "email"}, "remembered": false | true, "language": "en" | "zh-Hans"}`:
///   `scopes` are what the person is asked for (for `continue`, everything the app gets),
///   `granted_scopes` what they allowed the app before and is not asked again, `logo_uri` and
///   `policy_uri` null when the app has none, descriptions in `language`;
/// - an error: `400 {"error": "…", "error_description": "…", "state": "…", "iss": "…"}` as the
///   app's redirect would carry it (`login_required`, `consent_required`,
///   `interaction_required`, `access_denied`, `invalid_scope`, `invalid_request`, …), or
///   without `state` and `iss` when the app's request cannot be trusted (unknown `client_id`,
///   unregistered `redirect_uri`: never to be sent to that URI) or a ticket is not usable
///   (`invalid_ticket`); bearer-token failures are RFC 6750's 401 / 403 with `WWW-Authenticate`.
enum CompanionAnswer {
    /// What a ticket asks the person.
    enum Kind: String {
        /// Allow or deny the scopes listed (some are new).
        case consent
        /// "Continue as <name>": everything was allowed before, but a public app's remembered
        /// consent still needs a click (RFC 8252 §8.6).
        case `continue`
    }

    /// A code for the app.
    static func code(_ code: String, for request: AuthorizationRequest, issuer: String) -> Response {
        var members: [String: JSONValue] = ["code": .string(code), "iss": .string(issuer)]
        if let state = request.state { members["state"] = .string(state) }
        return OAuthEndpoint.json(members)
    }

    /// An authorization error the app may be told, with its `state` and the issuer.
    static func failure(_ error: AuthorizationRedirectError, state: String?, issuer: String) -> Response {
        var members: [String: JSONValue] = [
            "error": .string(error.code), "error_description": .string(error.description), "iss": .string(issuer),
        ]
        if let state { members["state"] = .string(state) }
        var response = OAuthEndpoint.json(members)
        response.status = .badRequest
        return response
    }

    /// The error for a request whose client or redirect URI cannot be trusted.
    static func untrusted(_ problem: PageProblem) -> OAuthError {
        switch problem {
        case .unknownClient: .invalidRequest("The client_id is not a registered app.")
        case .redirectNotRegistered: .invalidRequest("The redirect_uri is not registered for this app.")
        case .redirectMissing: .invalidRequest("The app has several redirect URIs: name one with redirect_uri.")
        case .redirectNotAllowed: .invalidRequest("This app may not use that redirect_uri.")
        default: .invalidRequest("The authorization request is malformed.")
        }
    }

    /// A ticket to show the person.
    static func ticket(
        _ ticket: String, kind: Kind, lifetime: TimeInterval, client: Client, user: UserRecord,
        asking: [(String, String)], granted: [(String, String)], language: PageLanguage
    ) -> Response {
        func scopes(_ lines: [(String, String)]) -> JSONValue {
            .array(lines.map { ["name": .string($0.0), "description": .string($0.1)] })
        }
        return OAuthEndpoint.json([
            "consent_required": true, "ticket": .string(ticket), "kind": .string(kind.rawValue),
            "expires_in": .integer(Int64(lifetime)),
            "client": [
                "client_id": .string(client.id), "name": .string(client.name),
                "logo_uri": client.logoURL.map(JSONValue.string) ?? .null,
                "policy_uri": client.privacyURL.map(JSONValue.string) ?? .null,
            ],
            "scopes": scopes(asking), "granted_scopes": scopes(granted),
            "user": ["name": .string(user.name), "email": .string(user.email)],
            "remembered": .bool(kind == .continue), "language": .string(language.rawValue),
        ])
    }
}
