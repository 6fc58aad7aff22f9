import Foundation

/// A refresh family issued from a browser session, with the session id (`sid`) its ID tokens
/// carry: what a sign-out of that browser must tell (OpenID Connect Back-Channel Logout 1.0).
public struct SessionFamily: Sendable, Hashable {
    /// The refresh family.
    public var familyID: String
    /// The client it was issued to.
    public var clientID: String
    /// The person.
    public var userID: String
    /// The `sid` of its ID tokens.
    public var sessionID: String

    /// A session family as stored.
    public init(familyID: String, clientID: String, userID: String, sessionID: String) {
        self.familyID = familyID
        self.clientID = clientID
        self.userID = userID
        self.sessionID = sessionID
    }
}
