import Foundation

/// An authorization request a client pushed to `POST /oauth/par` (RFC 9126), as the store
/// keeps it until `/oauth/authorize` takes it once.
public struct PushedAuthorizationRequest: Sendable, Equatable {
    /// The client that pushed it (and the only one that may use its `request_uri`).
    public var clientID: String
    /// The authorization parameters, validated when pushed, as a JSON object of strings.
    public var parameters: String
    /// When its `request_uri` stops working.
    public var expiresAt: Date

    /// A pushed request.
    public init(clientID: String, parameters: String, expiresAt: Date) {
        self.clientID = clientID
        self.parameters = parameters
        self.expiresAt = expiresAt
    }
}
