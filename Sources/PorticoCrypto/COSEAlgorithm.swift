/// The COSE algorithms (RFC 9053, IANA "COSE Algorithms") a passkey's public key may use.
///
/// The set mirrors `SignatureAlgorithm`: the three that OpenSSL verifies here and that every
/// platform authenticator offers. A credential with any other algorithm is refused at
/// registration, so an assertion is only ever checked with one of these.
public enum COSEAlgorithm: Int64, Sendable, Hashable, CaseIterable {
    /// ECDSA with SHA-256 on P-256; what nearly every authenticator makes.
    case es256 = -7
    /// EdDSA (Ed25519).
    case edDSA = -8
    /// RSASSA-PKCS1-v1_5 with SHA-256; Windows Hello's older keys.
    case rs256 = -257

    /// The signature algorithm OpenSSL performs for this COSE algorithm.
    public var signatureAlgorithm: SignatureAlgorithm {
        switch self {
        case .es256: .es256
        case .edDSA: .edDSA
        case .rs256: .rs256
        }
    }

    /// The COSE algorithm of `algorithm`; nil for PS256, which passkeys are not made with here.
    public init?(_ algorithm: SignatureAlgorithm) {
        switch algorithm {
        case .es256: self = .es256
        case .edDSA: self = .edDSA
        case .rs256: self = .rs256
        case .ps256: return nil
        }
    }
}
