import Foundation

/// What a mini-program container asks the host app for when a mini-program needs the person's
/// platform sign-in (mPaaS's `NBIAuthModel`: `uid`, `token`, `mcUid`).
///
/// The host backend makes it after redeeming the authorization code and linking the account; the
/// host app caches it in its ``TokenStore`` through ``AccountLinkSession``. Its `description`
/// never shows the token, so a model can be logged.
public struct AuthModel: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The person's platform user id (Portico's `user_id`, the `sub` of their tokens).
    public var uid: String
    /// The access token the container passes on: a mini-program's own token, exchanged by the
    /// host backend (RFC 8693) from the person's token, which stays on the backend (a backend
    /// that names no mini-program answers the person's token itself, as before).
    public var accessToken: String
    /// The host's own id of the person (mPaaS's `mcUid`), the other side of the link.
    public var hostUserID: String
    /// When ``accessToken`` expires; nil when the host backend did not say.
    public var expiresAt: Date?
    /// The token's type as the provider issued it: `DPoP` when it is bound to the host app's
    /// installation key (RFC 9449), so every use needs a proof of that key
    /// (``AccountLinkSession/authorizedRequest(_:retrying:)``); nil or `Bearer` for a bearer
    /// token. Optional so that a model cached before DPoP still decodes, as a bearer one.
    public var tokenType: String?

    /// A model with these values.
    public init(uid: String, accessToken: String, hostUserID: String, expiresAt: Date?, tokenType: String? = nil) {
        self.uid = uid
        self.accessToken = accessToken
        self.hostUserID = hostUserID
        self.expiresAt = expiresAt
        self.tokenType = tokenType
    }

    /// Whether ``accessToken`` is bound to the installation's DPoP key.
    public var isDPoPBound: Bool {
        tokenType?.caseInsensitiveCompare("DPoP") == .orderedSame
    }

    /// Whether the token is still good for at least `margin` seconds at `now`.
    func isFresh(at now: Date, margin: TimeInterval) -> Bool {
        guard let expiresAt else { return true }
        return now.addingTimeInterval(margin) < expiresAt
    }

    /// The ids and expiry; the token is redacted.
    public var description: String {
        "AuthModel(uid: \(uid), hostUserID: \(hostUserID), accessToken: <redacted>, "
            + "tokenType: \(tokenType ?? "Bearer"), expiresAt: \(expiresAt.map { "\($0)" } ?? "unknown"))"
    }
}

extension AuthModel {
    /// The claim names a model is kept under in a ``StoredGrant``.
    private static let uidClaim = "account_link_uid"
    private static let hostUserClaim = "account_link_host_user_id"

    /// The model as a ``StoredGrant``, so that every ``TokenStore`` (the Keychain, a `0600`
    /// file) keeps it as safely as a grant, with no new requirement on stores.
    var storedGrant: StoredGrant {
        StoredGrant(
            accessToken: accessToken, expiresAt: expiresAt, refreshToken: nil, scopes: [Scope.accountLink.name],
            idTokenClaims: [Self.uidClaim: .string(uid), Self.hostUserClaim: .string(hostUserID)], tokenType: tokenType)
    }

    /// The model kept in `grant`, or nil when the grant is not one.
    init?(storedGrant grant: StoredGrant) {
        guard let uid = grant.idTokenClaims?[Self.uidClaim]?.stringValue,
            let hostUserID = grant.idTokenClaims?[Self.hostUserClaim]?.stringValue
        else { return nil }
        self.init(
            uid: uid, accessToken: grant.accessToken, hostUserID: hostUserID, expiresAt: grant.expiresAt,
            tokenType: grant.tokenType)
    }
}
