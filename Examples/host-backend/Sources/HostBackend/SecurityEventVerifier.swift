import Foundation
import PorticoCrypto
import Synchronization

/// Checks a Security Event Token the platform pushed (RFC 8417, SSF 1.0, RFC 8935): the
/// signature against the provider's JWKS, `typ: secevent+jwt`, `iss`, `aud` the host's client
/// id, `iat`, `jti`, one `events` member and a `sub_id`.
public final class SecurityEventVerifier: Sendable {
    private let platform: PlatformClient
    private let keys = Mutex<JWSVerifier?>(nil)

    /// A verifier for SETs `platform`'s provider sends to its client.
    public init(platform: PlatformClient) {
        self.platform = platform
    }

    /// The claims of a valid SET; throws a ``HostBackendError`` (400, with the RFC 8935 error
    /// code) otherwise. Keys are fetched once, and again for a key not seen yet.
    public func verify(_ token: String) async throws -> JWTClaims {
        let issuer = try await platform.issuerIdentifier()
        var validator = JWTValidator(issuer: issuer, audience: platform.clientID)
        // A SET has no exp (RFC 8417 §2.2): its jti and iat are what a receiver keeps.
        validator.requiresExpiration = false
        let claims: JWTClaims
        do {
            claims = try await verifier(refresh: false).verifyJWT(
                token, algorithms: [.rs256, .ps256, .es256, .edDSA], type: "secevent+jwt", validator: validator)
        } catch JOSEError.unknownKeyID(_) {
            do {
                claims = try await verifier(refresh: true).verifyJWT(
                    token, algorithms: [.rs256, .ps256, .es256, .edDSA], type: "secevent+jwt", validator: validator)
            } catch { throw Self.invalid("invalid_key", "\(error)") }
        } catch { throw Self.invalid("invalid_request", "\(error)") }
        guard claims.issuedAt != nil, claims.jwtID?.isEmpty == false else {
            throw Self.invalid("invalid_request", "a SET needs iat and jti")
        }
        guard claims["events"]?.objectValue?.count == 1, claims["sub_id"]?.objectValue != nil else {
            throw Self.invalid("invalid_request", "a SET here carries one event and a sub_id")
        }
        return claims
    }

    private func verifier(refresh: Bool) async throws -> JWSVerifier {
        if !refresh, let verifier = keys.withLock({ $0 }) { return verifier }
        let verifier = try JWSVerifier(keySet: try await platform.keySet())
        keys.withLock { $0 = verifier }
        return verifier
    }

    private static func invalid(_ code: String, _ reason: String) -> HostBackendError {
        HostBackendError(.badRequest, code, "not a valid SET: \(reason)")
    }
}
