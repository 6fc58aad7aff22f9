import Foundation
import PorticoHTTP
import PorticoStore

/// `POST /oauth/revoke` (RFC 7009): a client gives up an access token or a refresh token.
///
/// The client authenticates (public clients by `client_id`). An access token is revoked by its
/// `jti`, remembered in the store until it would have expired, so every node refuses it from
/// then on; a refresh token revokes its whole family. `token_type_hint` only decides which kind
/// is tried first. Whatever the token is — unknown, expired, already revoked, or another
/// client's (RFC 7009 §2.1: then it is simply not revoked) — the answer is 200, so the endpoint
/// reveals nothing about tokens.
struct RevocationEndpoint {
    /// Where revocations and refresh families are kept.
    let store: any Store
    /// Client authentication, as at the token endpoint.
    let authenticator: ClientAuthenticator
    /// Reads access tokens (without the store).
    let verifier: AccessTokenVerifier
    /// The clock.
    let now: @Sendable () -> Date

    /// Registers the route.
    func register(on router: Router, execution: RouteExecution) {
        execution.postAuthenticatingClients("/oauth/revoke", on: router) { request in handle(request) }
    }

    /// Answers one request.
    func handle(_ request: Request) -> Response {
        OAuthEndpoint.respond {
            let parameters = try OAuthParameters(formOf: request)
            let client = try authenticator.authenticate(request, parameters: parameters)
            let token = try parameters.required("token")
            switch parameters["token_type_hint"] {
            case "device_secret":
                if try !revokeDeviceSecret(token, of: client.client),
                    try !revokeRefreshToken(token, of: client.client.id)
                {
                    try revokeAccessToken(token, of: client.client.id)
                }
            case "refresh_token":
                if try !revokeRefreshToken(token, of: client.client.id),
                    try !revokeAccessToken(token, of: client.client.id)
                {
                    try revokeDeviceSecret(token, of: client.client)
                }
            default:
                if try !revokeAccessToken(token, of: client.client.id),
                    try !revokeRefreshToken(token, of: client.client.id)
                {
                    try revokeDeviceSecret(token, of: client.client)
                }
            }
            var response = Response(status: .ok)
            response.headers["Cache-Control"] = "no-store"
            return response
        }
    }

    /// Revokes `token` if it is a live access token of `clientID`; true if it was an access
    /// token of this provider at all (so the refresh path need not be tried).
    @discardableResult
    private func revokeAccessToken(_ token: String, of clientID: String) throws -> Bool {
        guard PresentedToken.looksLikeJWT(token), let verified = try? verifier.verify(token) else { return false }
        if verified.clientID == clientID {
            try store.transaction {
                try $0.revokeAccessToken(id: verified.tokenID, expiresAt: verified.expiresAt)
            }
        }
        return true
    }

    /// Revokes the family of `token` if it is a refresh token of `clientID`; true if it was a
    /// refresh token of this provider at all.
    @discardableResult
    private func revokeRefreshToken(_ token: String, of clientID: String) throws -> Bool {
        guard !PresentedToken.looksLikeJWT(token) else { return false }
        let now = now()
        return try store.transaction { transaction in
            guard let record = try RefreshTokenPolicy.token(token, in: transaction),
                let family = try transaction.refreshFamily(id: record.familyID)
            else { return false }
            if family.clientID == clientID { try transaction.revokeRefreshFamily(id: family.id, now: now) }
            return true
        }
    }
}

extension RevocationEndpoint {
    /// Ends the Native SSO session of the device secret `token` if `client` is an app of its SSO
    /// group: the session and every refresh family issued in it are revoked, and access tokens
    /// carrying its `sid` are refused from then on. True if it was a device secret at all.
    @discardableResult
    fileprivate func revokeDeviceSecret(_ token: String, of client: Client) throws -> Bool {
        guard !PresentedToken.looksLikeJWT(token) else { return false }
        let now = now()
        return try store.transaction { transaction in
            guard let session = try transaction.deviceSession(secret: token) else { return false }
            if session.ssoGroup == client.ssoGroup { try NativeSSO.end(session, now: now, in: transaction) }
            return true
        }
    }
}

/// Helpers for endpoints that accept "a token" of either kind.
enum PresentedToken {
    /// Whether `token` has the shape of a compact JWS (access tokens); refresh tokens are plain
    /// base64url without dots.
    static func looksLikeJWT(_ token: String) -> Bool {
        token.utf8.lazy.filter { $0 == UInt8(ascii: ".") }.count == 2
    }
}
