import Foundation

/// A token endpoint's successful answer (RFC 6749 §5.1), as the SDK needs it.
struct TokenResponse: Sendable {
    let accessToken: String
    let expiresIn: TimeInterval?
    let refreshToken: String?
    /// The granted scopes; RFC 6749 §5.1 says an absent `scope` means "as requested".
    let scopes: [String]?
    let idToken: String?
    /// `DPoP` for a token bound to the installation's key (RFC 9449 §5), else `Bearer`.
    let tokenType: String

    /// Parses `reply`, or throws the OAuth error it carries.
    init(reply: HTTPReply) throws(AuthorizationError) {
        guard reply.status == 200 else { throw reply.failure("the token endpoint") }
        guard let json = reply.jsonObject, let accessToken = json["access_token"]?.stringValue, !accessToken.isEmpty
        else { throw AuthorizationError(.invalidResponse, "the token endpoint's answer has no access_token") }
        switch json["token_type"]?.stringValue?.lowercased() {
        case "bearer": tokenType = "Bearer"
        case "dpop": tokenType = "DPoP"
        default: throw AuthorizationError(.invalidResponse, "the token endpoint did not issue a bearer or DPoP token")
        }
        self.accessToken = accessToken
        expiresIn = json["expires_in"]?.doubleValue
        refreshToken = json["refresh_token"]?.stringValue
        scopes = json["scope"]?.stringValue.map { $0.split(separator: " ").map(String.init) }
        idToken = json["id_token"]?.stringValue
    }
}
