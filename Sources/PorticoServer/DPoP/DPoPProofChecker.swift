import Foundation
import PorticoCrypto
import PorticoHTTP

/// Checks the `DPoP` header of a request (RFC 9449 §4.3): everything but the replay check.
///
/// One checker serves the token endpoint and the resources; what differs is whether an access
/// token comes with the proof (then `ath` must be its hash) and how a failure is answered
/// (``Problem``, turned into the endpoint's own error by the caller).
struct DPoPProofChecker: Sendable {
    /// The proof's `typ`.
    static let type = "dpop+jwt"
    /// What proofs may be signed with, as `dpop_signing_alg_values_supported` says: asymmetric
    /// only, and only what Portico verifies.
    static let algorithms: [SignatureAlgorithm] = [.es256, .edDSA, .rs256, .ps256]
    /// ``algorithms`` as the verifier takes them, made once.
    private static let acceptedAlgorithms = Set(algorithms)
    /// How far a proof's `iat` may lie from now, either way (RFC 9449 §11.1): long enough for
    /// a phone's clock, short enough that the replay cache stays small.
    static let window: TimeInterval = 120
    /// The longest `jti` kept; a UUID or 128 random bits is a tenth of it.
    static let maximumJTILength = 256

    /// Why a proof was not accepted.
    enum Problem: Error, Equatable {
        /// The proof is missing where one is required, malformed, or fails a check.
        case invalid(String)
        /// The provider wants a (fresh) nonce of its own in the proof (`use_dpop_nonce`).
        case nonceWanted
    }

    /// The issuer, of which `htu` must name an endpoint.
    let issuer: IssuerIdentifier
    /// The provider's nonces.
    let nonces: DPoPNonces
    /// Whether every proof must carry a current nonce of this provider's (`serve --dpop-nonce`).
    let requiresNonce: Bool
    /// The clock.
    let now: @Sendable () -> Date
    /// The keys of the proof headers seen lately: one per app installation, the same in every
    /// proof it signs.
    let keyCache = EmbeddedKeyCache()
    /// The endpoints' own URLs, normalised once.
    let endpoints = NormalizedEndpoints()

    /// The nonce to hand a client told `use_dpop_nonce`.
    func currentNonce() -> String {
        nonces.current(at: now())
    }

    /// Adds the current nonce to the answer to a request with a proof when nonces are required
    /// (RFC 9449 §8.2), so that a client keeps a fresh one without a refusal first.
    func supplyNonce(in response: inout Response) {
        if requiresNonce { response.headers["DPoP-Nonce"] = currentNonce() }
    }

    /// The proof `request` carries for a request to `path`, checked; nil when it has none.
    ///
    /// - Parameter accessToken: the access token presented with it at a resource, whose hash
    ///   the proof's `ath` must be; nil at the token endpoint.
    func proof(of request: Request, path: String, accessToken: String? = nil) throws(Problem) -> DPoPProof? {
        let headers = request.headers.values(for: "DPoP")
        guard let header = headers.first else { return nil }
        guard headers.count == 1 else { throw .invalid("Send one DPoP header, not several.") }
        return try check(header, method: request.method.rawValue, path: path, accessToken: accessToken)
    }

    /// Checks the proof `jwt` of a `method` request to `path`.
    func check(_ jwt: String, method: String, path: String, accessToken: String?) throws(Problem) -> DPoPProof {
        let verified: VerifiedJWS
        do {
            verified = try JWSVerifier.verifyWithEmbeddedKey(
                jwt, algorithms: Self.acceptedAlgorithms, type: Self.type, keyCache: keyCache)
        } catch {
            throw .invalid(Self.words(for: error))
        }
        guard let claims = try? verified.claims() else { throw .invalid("The DPoP proof's claims are not valid JSON.") }
        guard let jti = claims.jwtID, !jti.isEmpty, jti.utf8.count <= Self.maximumJTILength else {
            throw .invalid("The DPoP proof needs a jti of at most \(Self.maximumJTILength) bytes.")
        }
        guard claims["htm"]?.stringValue == method else {
            throw .invalid("The DPoP proof's htm is not this request's method.")
        }
        guard let htu = claims["htu"]?.stringValue, endpoints.named(by: htu, endpoint: issuer.current + path) else {
            throw .invalid("The DPoP proof's htu is not this endpoint's URL.")
        }
        let now = now()
        guard let issuedAt = claims.issuedAt else { throw .invalid("The DPoP proof needs an iat.") }
        guard abs(issuedAt.timeIntervalSince(now)) <= Self.window else {
            throw .invalid("The DPoP proof's iat is not within \(Int(Self.window)) seconds of the server's time.")
        }
        if let accessToken {
            let expected = Base64URL.encode(Digest.sha256.hash(accessToken))
            guard let ath = claims["ath"]?.stringValue, ConstantTime.equals(ath, expected) else {
                throw .invalid("The DPoP proof's ath is not the hash of the access token presented with it.")
            }
        }
        let nonce = claims["nonce"]?.stringValue
        if let nonce, !nonces.accepts(nonce, at: now) { throw .nonceWanted }
        if requiresNonce && nonce == nil { throw .nonceWanted }
        let thumbprint: String
        do { thumbprint = try verified.key.jwk.thumbprint() } catch {
            throw .invalid("The DPoP proof's key is not usable.")
        }
        return DPoPProof(
            keyThumbprint: thumbprint, jti: jti, acceptableUntil: issuedAt.addingTimeInterval(Self.window),
            algorithm: verified.key.algorithm)
    }

    /// Whether `text` can be a JWK SHA-256 thumbprint (RFC 7638) in base64url, as `dpop_jkt` is:
    /// 43 characters of the base64url alphabet.
    static func isThumbprint(_ text: String) -> Bool {
        text.utf8.count == 43 && Base64URL.decode(Substring(text))?.count == 32
    }

    /// `url` as RFC 9449 §4.3 compares it: scheme and host in lowercase, a default port left
    /// out, an empty path as `/`, no query or fragment (RFC 3986 §6.2.2, §6.2.3); nil when it
    /// is not an absolute http(s) URL.
    static func normalized(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host?.lowercased(), !host.isEmpty,
            components.user == nil, components.password == nil
        else { return nil }
        var text = scheme + "://" + host
        if let port = components.port, !(scheme == "https" && port == 443), !(scheme == "http" && port == 80) {
            text += ":\(port)"
        }
        let path = components.percentEncodedPath
        return text + (path.isEmpty ? "/" : path)
    }

    /// What a client's developer needs to hear of a signature or header failure.
    private static func words(for error: JOSEError) -> String {
        switch error {
        case .wrongType: "The DPoP proof's typ must be dpop+jwt."
        case .missingEmbeddedKey: "The DPoP proof's header needs the public key as jwk."
        case .privateEmbeddedKey: "The DPoP proof's jwk must be a public key; it has private members."
        case .invalidEmbeddedKey, .keyAlgorithmMismatch: "The DPoP proof's jwk is not a usable key for its alg."
        case .algorithmNone, .unsupportedAlgorithm, .algorithmNotAllowed:
            "The DPoP proof's alg must be one of \(algorithms.map(\.rawValue).joined(separator: ", "))."
        case .invalidSignature, .invalidSignatureLength: "The DPoP proof's signature does not verify."
        default: "The DPoP proof is not a well-formed signed JWT."
        }
    }
}

/// The normalised URLs of the endpoints that take proofs, kept once each, and the `htu`
/// comparison that uses them.
///
/// Why: clients nearly always send `htu` exactly as discovery spells the endpoint, and equal
/// text normalises equally, so that case needs no URL parsing at all; parsing both URLs with
/// `URLComponents` was a few µs of every DPoP request. The endpoints are a handful of fixed
/// paths under the issuer, so the table stays small (``BoundedCache``).
final class NormalizedEndpoints: Sendable {
    /// How many endpoint URLs are kept before the table is emptied.
    static let capacity = 64
    private let table = BoundedCache<String, String?>(capacity: capacity)

    /// Whether `htu` names `endpoint` as RFC 9449 §4.3 compares them
    /// (``DPoPProofChecker/normalized(_:)``): never when either is not an absolute http(s) URL.
    func named(by htu: String, endpoint: String) -> Bool {
        guard let target = table.value(for: endpoint, orMake: { DPoPProofChecker.normalized(endpoint) }) else {
            return false
        }
        if htu == endpoint { return true }
        return DPoPProofChecker.normalized(htu) == target
    }
}
