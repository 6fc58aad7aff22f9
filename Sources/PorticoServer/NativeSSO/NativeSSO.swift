import Foundation
import PorticoCrypto
import PorticoStore

/// OpenID Connect Native SSO for Mobile Apps 1.0: one sign-in shared by the apps of one vendor
/// on one device.
///
/// An app registered with `--sso-group` that is granted `device_sso` (with `openid`) gets a
/// `device_secret` beside its tokens: 256 random bits standing for a ``DeviceSession``, stored
/// only as a hash. Its ID tokens carry the session's `sid` and `ds_hash` (the left half of the
/// device secret's SHA-256, base64url: the binding the spec leaves to the provider, computable
/// from the stored hash so that refreshed ID tokens carry it too). Another app of the group
/// trades that ID token and device secret for tokens of its own (``NativeSSOExchange``).
///
/// Everything issued in the session ends with it: revoking the device secret, signing the
/// browser out (RP-initiated logout, Your Account) or disabling the person revokes the session
/// and every refresh family issued in it, and access tokens carrying its `sid` are refused.
enum NativeSSO {
    /// The scope that asks for a device secret.
    static let scope = "device_sso"

    /// Whether granting `scopes` to `client` begins a device session.
    static func begins(for client: Client, scopes: [String]) -> Bool {
        client.ssoGroup != nil && scopes.contains(scope) && scopes.contains("openid")
    }

    /// Starts a device session for a grant to `client` whose refresh family is `familyID`, in
    /// `transaction`; returns it with its device secret in plain text, the one time it exists.
    static func begin(
        for client: Client, userID: String, scopes: [String], authTime: Date, browserSessionHashedID: String?,
        familyID: String, now: Date, in transaction: any StoreTransaction
    ) throws -> (session: DeviceSession, secret: String) {
        let secret = SecureRandom.token()
        let session = DeviceSession(
            secret: secret, userID: userID, ssoGroup: client.ssoGroup ?? "",
            browserSessionHashedID: browserSessionHashedID,
            scopes: scopes, authTime: authTime, createdAt: now)
        try transaction.insert(session)
        try transaction.linkRefreshFamily(familyID, toDeviceSession: session.id)
        return (session, secret)
    }

    /// `ds_hash` for the device secret whose SHA-256 reference is `reference`.
    static func deviceSecretHash(reference: String) -> String {
        Base64URL.encode((Base64URL.decode(reference) ?? []).prefix(16))
    }

    /// `ds_hash` for a presented device secret.
    static func deviceSecretHash(secret: String) -> String {
        Base64URL.encode(Digest.sha256.hash(secret).prefix(16))
    }

    /// Marks `issuance` as issued in `session`: `sid` on the access token, `sid` and `ds_hash` on
    /// the ID token, and the device secret itself in the answer when it is new.
    static func mark(_ issuance: inout TokenIssuance, session: DeviceSession, newSecret: String?) {
        issuance.accessToken.additionalClaims["sid"] = .string(session.id)
        issuance.identity?.additionalClaims["sid"] = .string(session.id)
        issuance.identity?.additionalClaims["ds_hash"] = .string(
            deviceSecretHash(reference: session.secretHashReference))
        if let newSecret { issuance.additionalMembers["device_secret"] = .string(newSecret) }
    }

    /// The live device session a refresh family was issued in, if any; read only for families
    /// granted `device_sso`, so other refreshes pay nothing.
    static func session(of family: RefreshFamily, in transaction: any StoreTransaction) throws -> DeviceSession? {
        guard family.scopes.contains(scope), let id = try transaction.deviceSessionID(refreshFamilyID: family.id),
            let session = try transaction.deviceSession(id: id), !session.isRevoked
        else { return nil }
        return session
    }

    /// Whether `session` is alive: not revoked, and a refresh family issued in it still live.
    static func isAlive(_ session: DeviceSession, now: Date, in transaction: any StoreTransaction) throws -> Bool {
        guard !session.isRevoked else { return false }
        return try transaction.hasLiveRefreshFamily(deviceSessionID: session.id, now: now)
    }

    /// Ends `session` and every refresh family issued in it.
    static func end(_ session: DeviceSession, now: Date, in transaction: any StoreTransaction) throws {
        try transaction.revokeDeviceSession(id: session.id, now: now)
        try transaction.revokeRefreshFamilies(deviceSessionID: session.id, now: now)
    }

    /// Ends the device sessions begun in the browser session `hashedID` (it is being signed out).
    static func endSessions(browserSessionHashedID hashedID: String, now: Date, in transaction: any StoreTransaction)
        throws
    {
        for session in try transaction.deviceSessions(browserSessionHashedID: hashedID) {
            try end(session, now: now, in: transaction)
        }
    }

    /// Ends the device sessions begun by the browser whose session cookie is `token`.
    static func endSessions(browserSessionToken token: String, now: Date, in transaction: any StoreTransaction) throws {
        try endSessions(
            browserSessionHashedID: Base64URL.encode(Digest.sha256.hash(token)), now: now, in: transaction)
    }

    /// Ends every device session of a person (disabled, signed out everywhere).
    static func endSessions(userID: String, now: Date, in transaction: any StoreTransaction) throws {
        for session in try transaction.deviceSessions(userID: userID) {
            try end(session, now: now, in: transaction)
        }
    }
}
