import Foundation

/// One authorization request to push to a provider's PAR endpoint (RFC 9126 §2.1): the
/// parameters the browser would otherwise carry, `client_id` among them.
///
/// The SDK posts it itself for public clients; with ``PushedAuthorizationMode/through(_:)`` an
/// app's backend gets it, adds the client's authentication, and posts ``formFields`` to
/// ``endpoint``.
public struct PushedAuthorizationRequest: Sendable {
    /// The provider's `pushed_authorization_request_endpoint`.
    public let endpoint: URL
    /// The client the request is for.
    public let clientID: String
    /// The authorization parameters, in order: `response_type`, `redirect_uri`, `scope`,
    /// `state`, PKCE, `nonce`, the app's extras, and `dpop_jkt` when the code is to be bound.
    public let parameters: [(name: String, value: String)]

    /// A request of `parameters` for `clientID` at `endpoint`.
    public init(endpoint: URL, clientID: String, parameters: [(name: String, value: String)]) {
        self.endpoint = endpoint
        self.clientID = clientID
        self.parameters = parameters
    }

    /// The parameters as `name=value` pairs for a form post.
    public var formFields: [(String, String)] { parameters.map { ($0.name, $0.value) } }

    /// The parameter `name`'s value, if the request has it.
    public func value(of name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }
}
