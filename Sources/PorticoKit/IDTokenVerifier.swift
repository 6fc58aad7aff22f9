import Foundation
import PorticoCrypto
import Synchronization

/// Verifies ID tokens against the provider's published keys: signature (any algorithm
/// PorticoCrypto implements, never `none` or HMAC), `iss`, `aud`, `exp` and the `nonce` of the
/// attempt.
///
/// The key set is cached; a token signed with an unknown `kid` (the provider rotated its
/// keys) makes it fetch the set once more before failing.
final class IDTokenVerifier: Sendable {
    private let provider: Provider
    private let clientID: String
    private let http: HTTPClient
    private let cached = Mutex<JWSVerifier?>(nil)

    init(provider: Provider, clientID: String, http: HTTPClient) {
        self.provider = provider
        self.clientID = clientID
        self.http = http
    }

    /// The verified claims of `token`; `nonce` must match when given.
    func verify(_ token: String, nonce: String?) async throws(AuthorizationError) -> [String: JSONValue] {
        var verifier = try await keys(refetch: false)
        var claims: JWTClaims
        do {
            claims = try verifier.verify(token, algorithms: Set(SignatureAlgorithm.allCases)).claims()
        } catch .unknownKeyID {
            verifier = try await keys(refetch: true)
            claims = try check { () throws(JOSEError) in
                try verifier.verify(token, algorithms: Set(SignatureAlgorithm.allCases)).claims()
            }
        } catch {
            throw AuthorizationError(.invalidResponse, "the ID token failed verification: \(error)")
        }
        let validator = JWTValidator(issuer: provider.issuer, audience: clientID)
        do {
            try validator.validate(claims)
        } catch .wrongIssuer(let issuer) {
            throw AuthorizationError(.issuerMismatch, "the ID token was issued by \(issuer ?? "nobody")")
        } catch {
            throw AuthorizationError(.invalidResponse, "the ID token is not valid for this app: \(error)")
        }
        if let nonce, claims["nonce"]?.stringValue != nonce {
            throw AuthorizationError(.invalidResponse, "the ID token's nonce is not this authorization's")
        }
        var result = claims.additionalClaims
        if let subject = claims.subject { result["sub"] = .string(subject) }
        if let issuer = claims.issuer { result["iss"] = .string(issuer) }
        return result
    }

    private func check<T>(_ body: () throws(JOSEError) -> T) throws(AuthorizationError) -> T {
        do { return try body() } catch {
            throw AuthorizationError(.invalidResponse, "the ID token failed verification: \(error)")
        }
    }

    private func keys(refetch: Bool) async throws(AuthorizationError) -> JWSVerifier {
        if !refetch, let verifier = cached.withLock({ $0 }) { return verifier }
        guard let jwksURI = provider.jwksURI else {
            throw AuthorizationError(.invalidResponse, "the provider publishes no keys to verify its ID token with")
        }
        let reply = try await http.get(jwksURI)
        guard reply.status == 200 else { throw reply.failure("the JWKS endpoint") }
        let set: JWKSet
        do {
            set = try JSONDecoder().decode(JWKSet.self, from: reply.body)
        } catch {
            throw AuthorizationError(.invalidResponse, "the provider's JWKS cannot be read", underlyingError: error)
        }
        // Keys this SDK cannot use (encryption keys, unknown curves) are skipped, not fatal.
        let usable = set.keys.compactMap { try? VerificationKey(jwk: $0) }
        let verifier = JWSVerifier(keys: usable)
        cached.withLock { $0 = verifier }
        return verifier
    }
}
