import Foundation
import PorticoStore

/// Where refresh-token families begin: the code and device grants start one for each grant a
/// person gives a client that may refresh.
enum RefreshFamilies {
    /// Starts a refresh-token family for a grant a person just gave `client` (code or device
    /// grant), when the client may use refresh tokens: stores the family and its first token
    /// (hashed) in `transaction` and returns the token and the family's id; nil otherwise. A
    /// family issued in a Native SSO device session is stored linked to it (`deviceSessionID`).
    static func begin(
        for client: Client, userID: String, scopes: [String], authTime: Date, now: Date, lifetime: TimeInterval,
        inDeviceSession deviceSessionID: String? = nil, in transaction: any StoreTransaction
    ) throws -> (token: String, familyID: String)? {
        guard client.allowedGrantTypes.contains(RefreshTokenGrant.grantType) else { return nil }
        let family = RefreshFamily(
            clientID: client.id, userID: userID, scopes: scopes, authTime: authTime, createdAt: now)
        let token = RefreshToken.mint(familyID: family.id)
        let expiry = now.addingTimeInterval(lifetime)
        if let deviceSessionID {
            try transaction.insert(family, token: token, expiresAt: expiry, inDeviceSession: deviceSessionID)
        } else {
            try transaction.insert(family, token: token, expiresAt: expiry)
        }
        return (token, family.id)
    }
}
