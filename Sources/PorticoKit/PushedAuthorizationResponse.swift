import Foundation

/// The provider's answer to a pushed authorization request (RFC 9126 §2.2): the `request_uri`
/// that stands for the pushed parameters, good once and briefly.
public struct PushedAuthorizationResponse: Sendable, Hashable {
    /// The reference the browser carries to the authorization endpoint instead of the
    /// parameters (`urn:ietf:params:oauth:request_uri:…` at Portico).
    public let requestURI: String
    /// How long ``requestURI`` works, in seconds (60 at Portico).
    public let expiresIn: TimeInterval

    /// An answer naming `requestURI`, as a backend that pushed for the app relays it.
    public init(requestURI: String, expiresIn: TimeInterval) {
        self.requestURI = requestURI
        self.expiresIn = expiresIn
    }

    /// The answer in `reply`: 201 (or 200) with a JSON `request_uri` and `expires_in`; an OAuth
    /// error body becomes an ``AuthorizationError`` carrying the provider's own words.
    init(reply: HTTPReply) throws(AuthorizationError) {
        guard reply.status == 201 || reply.status == 200 else {
            let failure = reply.failure("the pushed authorization request endpoint")
            guard failure.oauthError == "invalid_client" else { throw failure }
            // The likely cause, said where a developer looks: a client with a secret cannot
            // authenticate from the device.
            throw AuthorizationError(
                failure.code,
                "the provider did not take the pushed request from this app (invalid_client); a client with "
                    + "a secret pushes through its backend (PushedAuthorizationMode.through) or not at all (.never)",
                oauthError: failure.oauthError, oauthErrorDescription: failure.oauthErrorDescription)
        }
        guard let json = reply.jsonObject, let requestURI = json["request_uri"]?.stringValue, !requestURI.isEmpty
        else {
            throw AuthorizationError(.invalidResponse, "the pushed authorization request endpoint sent no request_uri")
        }
        self.init(requestURI: requestURI, expiresIn: json["expires_in"]?.doubleValue ?? 60)
    }
}
