import Foundation
import PorticoCrypto
import Synchronization

/// Checks a back-channel logout token as OpenID Connect Back-Channel Logout 1.0 §2.6 asks: the
/// signature against the provider's JWKS, `typ: logout+jwt`, `iss`, `aud`, `iat` and `exp`, the
/// back-channel `events` member, `sub` or `sid`, a `jti`, and no `nonce` (so an ID token can
/// never be replayed as a logout token).
public final class LogoutTokenVerifier: Sendable {
    /// The `events` member a logout token must carry.
    public static let event = "http://schemas.openid.net/event/backchannel-logout"

    private let platform: PlatformClient
    private let keys = Mutex<JWSVerifier?>(nil)

    /// A verifier for tokens `platform`'s provider sends to its client.
    public init(platform: PlatformClient) {
        self.platform = platform
    }

    /// The claims of a valid logout token; throws a 400 ``HostBackendError`` otherwise. Keys are
    /// fetched once and again when a token names a key not seen yet (after a rotation).
    public func verify(_ token: String) async throws -> JWTClaims {
        let issuer = try await platform.issuerIdentifier()
        let validator = JWTValidator(issuer: issuer, audience: platform.clientID)
        let claims: JWTClaims
        do {
            claims = try await verifier(refresh: false).verifyJWT(
                token, algorithms: [.rs256, .ps256, .es256, .edDSA], type: "logout+jwt", validator: validator)
        } catch JOSEError.unknownKeyID(_) {
            do {
                claims = try await verifier(refresh: true).verifyJWT(
                    token, algorithms: [.rs256, .ps256, .es256, .edDSA], type: "logout+jwt", validator: validator)
            } catch { throw Self.invalid("\(error)") }
        } catch { throw Self.invalid("\(error)") }
        guard claims.issuedAt != nil else { throw Self.invalid("no iat") }
        guard claims.jwtID?.isEmpty == false else { throw Self.invalid("no jti") }
        guard claims["events"]?.objectValue?[Self.event]?.objectValue != nil else {
            throw Self.invalid("no back-channel logout event")
        }
        guard claims["nonce"] == nil else { throw Self.invalid("a logout token never carries a nonce") }
        guard claims.subject != nil || claims["sid"]?.stringValue != nil else {
            throw Self.invalid("neither sub nor sid")
        }
        return claims
    }

    private func verifier(refresh: Bool) async throws -> JWSVerifier {
        if !refresh, let verifier = keys.withLock({ $0 }) { return verifier }
        let verifier = try JWSVerifier(keySet: try await platform.keySet())
        keys.withLock { $0 = verifier }
        return verifier
    }

    private static func invalid(_ reason: String) -> HostBackendError {
        HostBackendError(.badRequest, "invalid_request", "not a valid logout token: \(reason)")
    }
}
