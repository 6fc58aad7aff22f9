import PorticoCrypto
import PorticoHTTP

/// Why a FedCM endpoint refused a request, answered as FedCM's error format: `{"error":
/// {"code": "<OAuth error>", "url": "<issuer>/help"}}`, which the browser hands to the app.
///
/// Every refusal is decided before anything is written, so a refused request changes nothing.
enum FedCMError: Error, Equatable {
    /// The request does not carry `Sec-Fetch-Dest: webidentity`: not the browser's FedCM.
    case notWebIdentity
    /// A parameter is missing or malformed; the text says which.
    case invalidRequest(String)
    /// Unknown or suspended app (`client_id`).
    case unauthorizedClient
    /// The request's `Origin` is not one of the app's registered web origins.
    case originNotAllowed
    /// Nobody is signed in, or not the account named.
    case signedOut
    /// The app may not ask for these scopes.
    case invalidScope(String)
    /// The person may not sign in to this app now (an unverified app's limit).
    case accessDenied

    /// The OAuth error code.
    var code: String {
        switch self {
        case .notWebIdentity, .invalidRequest: "invalid_request"
        case .unauthorizedClient, .originNotAllowed: "unauthorized_client"
        case .signedOut: "access_denied"
        case .invalidScope: "invalid_scope"
        case .accessDenied: "access_denied"
        }
    }

    /// The HTTP status.
    var status: HTTPStatus {
        switch self {
        case .notWebIdentity, .invalidRequest, .invalidScope: .badRequest
        case .unauthorizedClient, .originNotAllowed, .accessDenied: .forbidden
        case .signedOut: .unauthorized
        }
    }

    /// What went wrong, for a developer reading the answer.
    var description: String {
        switch self {
        case .notWebIdentity: "FedCM endpoints answer only the browser's FedCM requests (Sec-Fetch-Dest: webidentity)."
        case .invalidRequest(let text): text
        case .unauthorizedClient: "The client_id is unknown, or the app is suspended."
        case .originNotAllowed: "The request's Origin is not one of the app's registered web origins."
        case .signedOut: "Nobody is signed in to Portico in this browser."
        case .invalidScope(let text): text
        case .accessDenied: "This app cannot sign this person in now."
        }
    }

    /// The JSON answer; `issuer` names the help page in `url`.
    func response(issuer: String) -> Response {
        let body: JSONValue = [
            "error": ["code": .string(code), "url": .string(issuer + "/help")],
            "error_description": .string(description),
        ]
        var response = Response.json(raw: body.jsonString, status: status)
        response.headers["Cache-Control"] = "no-store"
        return response
    }
}
