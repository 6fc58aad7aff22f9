import Foundation

/// What a one-statement rotation (``RefreshRotationStorage``) read beside its swap: the family
/// and what hangs off it, everything a refresh grant needs to issue its tokens.
public struct RefreshRotationRecord: Sendable, Hashable {
    /// The family, as it is after the rotation (only its token columns changed).
    public var family: RefreshFamily
    /// The family's person (who was not disabled when the swap was made).
    public var user: UserRecord
    /// The resource the family was issued for (RFC 8707), if any.
    public var resource: String?
    /// The authentication methods recorded for the family, if any.
    public var authenticationMethods: [String]?
    /// The `sid` of the browser session the family was issued in, if recorded.
    public var sessionID: String?
    /// The Native SSO device session the family was issued in, if any.
    public var deviceSessionID: String?
    /// The last removal of the person's grant to the family's client
    /// (``AccessTokenRevocationStorage/grantRevocationTime(userID:clientID:)``), read by the same
    /// statement so that the refresh needs no second trip to order its access token after it.
    public var grantRevokedAt: Date?

    /// A record as a backend read it.
    public init(
        family: RefreshFamily, user: UserRecord, resource: String?, authenticationMethods: [String]?,
        sessionID: String?, deviceSessionID: String?, grantRevokedAt: Date? = nil
    ) {
        self.family = family
        self.user = user
        self.resource = resource
        self.authenticationMethods = authenticationMethods
        self.sessionID = sessionID
        self.deviceSessionID = deviceSessionID
        self.grantRevokedAt = grantRevokedAt
    }
}
