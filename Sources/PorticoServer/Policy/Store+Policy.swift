import Foundation
import PorticoStore

// The provider's policies on the store (refresh rotation, device polls, consent union) as calls
// of their own, each in its own transaction, for callers that need only one (tests, benches).
extension Store {
    /// Adds scopes to a consent and returns the union granted.
    @discardableResult public func grantConsent(
        userID: String, clientID: String, scopes: Set<String>, now: Date = Date()
    ) throws -> Consent {
        try transaction { try $0.grantConsent(userID: userID, clientID: clientID, scopes: scopes, now: now) }
    }
    /// The token whose plain value is `token`.
    public func refreshToken(_ token: String) throws -> RefreshToken? { try read { try $0.refreshToken(token) } }
    /// Rotates a presented token (see the transaction's `rotateRefreshToken`).
    public func rotateRefreshToken(_ presented: String, replacement: String, expiresAt: Date, now: Date = Date())
        throws -> RefreshRotation
    {
        try transaction {
            try $0.rotateRefreshToken(presented, replacement: replacement, expiresAt: expiresAt, now: now)
        }
    }
    /// Answers a device's poll.
    public func pollDeviceAuthorization(deviceCode: String, now: Date = Date()) throws -> DevicePoll {
        try transaction { try $0.pollDeviceAuthorization(deviceCode: deviceCode, now: now) }
    }
}
