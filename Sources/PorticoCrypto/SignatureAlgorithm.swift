/// The JWS signature algorithms Portico signs and verifies (RFC 7518 §3, RFC 8037).
///
/// The set is closed on purpose: HMAC (`HS256`) and `none` are absent, so a token can never
/// be "verified" with a public key used as an HMAC secret or with no signature at all.
public enum SignatureAlgorithm: String, Sendable, Hashable, Codable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256; the default for ID tokens, which every OIDC client supports.
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256; the default for access tokens, cheap to sign at volume.
    case es256 = "ES256"
    /// Ed25519 (RFC 8037); fast and deterministic, for clients that ask for it.
    case edDSA = "EdDSA"
    /// RSASSA-PSS with SHA-256, MGF1 with SHA-256 and a 32-byte salt (RFC 7518 §3.5): the RSA
    /// algorithm FAPI 2.0 (§5.4) allows, where PKCS#1 v1.5 is not. The provider's own PS256
    /// key is an RSA key of its own, never its RS256 key used a second way; a client's RSA key
    /// registered without `alg` verifies both (``VerificationKey/keys(for:)``), as JOSE allows.
    case ps256 = "PS256"

    /// The JWK `kty` of keys that can make this algorithm's signatures.
    public var keyType: String {
        switch self {
        case .rs256, .ps256: "RSA"
        case .es256: "EC"
        case .edDSA: "OKP"
        }
    }

    /// The JWK `crv` for curve-based algorithms, nil for RSA.
    public var curve: String? {
        switch self {
        case .rs256, .ps256: nil
        case .es256: "P-256"
        case .edDSA: "Ed25519"
        }
    }

    /// Whether this is an RSA algorithm, whose signatures are as long as the modulus.
    var isRSA: Bool {
        keyType == "RSA"
    }
}
