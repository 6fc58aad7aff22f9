import Foundation

/// Verifies ID tokens against the provider's published keys: signature (RS256, PS256, ES256
/// or EdDSA, never `none` or HMAC), `iss`, `aud` (and `azp` when there are several audiences),
/// `exp`, `nbf` and `iat` with the manager's leeway and clock, the `nonce` of the attempt,
/// `auth_time` when a `max_age` was asked, and the same `sub` as before after a refresh.
///
/// The key set is cached; a token signed with an unknown `kid` (the provider rotated its
/// keys) makes it fetch the set once more before failing.
final class IDTokenVerifier: Sendable {
    /// What one token must match besides the provider and the client.
    struct Expectations: Sendable {
        /// The attempt's nonce; nil on refresh, when the provider echoes none.
        var nonce: String?
        /// The `max_age` the request asked for: `auth_time` must be at most this old.
        var maxAge: TimeInterval?
        /// The `sub` of the grant's earlier ID token (OpenID Connect Core §12.2).
        var subject: String?
    }

    private let provider: Provider
    private let clientID: String
    private let http: HTTPClient
    private let leeway: TimeInterval
    private let now: @Sendable () -> Date
    private let cached = LockedState<[JSONWebKey]?>(nil)

    init(
        provider: Provider, clientID: String, http: HTTPClient, leeway: TimeInterval,
        now: @escaping @Sendable () -> Date
    ) {
        self.provider = provider
        self.clientID = clientID
        self.http = http
        self.leeway = leeway
        self.now = now
    }

    /// The verified claims of `token`.
    func verify(_ token: String, _ expected: Expectations) async throws(AuthorizationError) -> [String: ProfileValue] {
        let jws = try CompactJWS(token)
        var keys = try await keys(refetch: false)
        if !keys.contains(where: { $0.keyID == jws.keyID }) { keys = try await self.keys(refetch: true) }
        guard let key = keys.first(where: { $0.keyID == jws.keyID && $0.signatureAlgorithms.contains(jws.algorithm) })
        else {
            throw Self.failure("no published \(jws.algorithm.rawValue) key has the kid \(jws.keyID)")
        }
        guard PlatformCrypto.isValidSignature(of: jws, key: key) else { throw Self.failure("the signature is wrong") }
        try validate(jws.claims, expected)
        return jws.claims
    }

    /// The claim checks of OpenID Connect Core §3.1.3.7 that apply to a public client.
    func validate(_ claims: [String: ProfileValue], _ expected: Expectations) throws(AuthorizationError) {
        guard let issuer = claims["iss"]?.stringValue, issuer == provider.issuer else {
            throw AuthorizationError(
                .issuerMismatch, "the ID token was issued by \(claims["iss"]?.stringValue ?? "nobody")")
        }
        let audiences = claims["aud"]?.stringValue.map { [$0] } ?? claims["aud"]?.arrayValue?.compactMap(\.stringValue)
        guard let audiences, audiences.contains(clientID) else { throw Self.invalid("it is meant for another app") }
        let party = claims["azp"]?.stringValue
        if audiences.count > 1 && party == nil { throw Self.invalid("it has several audiences but no azp") }
        if let party, party != clientID { throw Self.invalid("its azp names another app") }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw Self.invalid("it has no sub") }
        let instant = now()
        guard let expiry = claims["exp"]?.doubleValue else { throw Self.invalid("it has no exp") }
        guard instant.timeIntervalSince1970 < expiry + leeway else { throw Self.invalid("it has expired") }
        if let notBefore = claims["nbf"]?.doubleValue, instant.timeIntervalSince1970 + leeway < notBefore {
            throw Self.invalid("it is not valid yet")
        }
        if let issuedAt = claims["iat"]?.doubleValue, instant.timeIntervalSince1970 + leeway < issuedAt {
            throw Self.invalid("it was issued in the future")
        }
        if let nonce = expected.nonce, claims["nonce"]?.stringValue != nonce {
            throw Self.invalid("its nonce is not this authorization's")
        }
        if let maxAge = expected.maxAge {
            guard let authTime = claims["auth_time"]?.doubleValue else {
                throw Self.invalid("max_age was asked but it has no auth_time")
            }
            guard instant.timeIntervalSince1970 - leeway <= authTime + maxAge else {
                throw Self.invalid("the sign-in is older than the max_age asked for")
            }
        }
        if let previous = expected.subject, previous != subject {
            throw Self.invalid("it names another person (sub) than the grant's earlier ID token")
        }
    }

    private static func failure(_ reason: String) -> AuthorizationError {
        AuthorizationError(.invalidResponse, "the ID token failed verification: \(reason)")
    }

    private static func invalid(_ reason: String) -> AuthorizationError {
        AuthorizationError(.invalidResponse, "the ID token is not valid for this app: \(reason)")
    }

    private func keys(refetch: Bool) async throws(AuthorizationError) -> [JSONWebKey] {
        if !refetch, let keys = cached.withLock({ $0 }) { return keys }
        guard let jwksURI = provider.jwksURI else {
            throw AuthorizationError(.invalidResponse, "the provider publishes no keys to verify its ID token with")
        }
        let reply = try await http.get(jwksURI)
        guard reply.status == 200 else { throw reply.failure("the JWKS endpoint") }
        let set: JSONWebKeySet
        do {
            set = try JSONDecoder().decode(JSONWebKeySet.self, from: reply.body)
        } catch {
            throw AuthorizationError(.invalidResponse, "the provider's JWKS cannot be read", underlyingError: error)
        }
        // Keys this SDK cannot use (encryption keys, unknown curves) are skipped, not fatal.
        let usable = set.keys.filter { !$0.signatureAlgorithms.isEmpty && $0.keyID != nil }
        cached.withLock { $0 = usable }
        return usable
    }
}
