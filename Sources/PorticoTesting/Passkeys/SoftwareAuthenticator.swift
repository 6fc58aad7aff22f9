import PorticoCrypto
import PorticoServer

/// A WebAuthn authenticator in software: keys made by OpenSSL, CBOR written by libcbor, for the
/// tests (which tamper with every part it produces) and the benchmark's passkey sign-ins.
///
/// Everything it builds follows WebAuthn Level 3 §6.1 and §6.5; every knob exists so that a
/// test can break exactly one thing and see the relying party refuse it.
public struct SoftwareAuthenticator: Sendable {
    /// The credential's private key.
    public let key: SigningKey
    /// The credential's COSE algorithm, the key's own.
    public let coseAlgorithm: COSEAlgorithm
    /// The credential id.
    public let credentialID: [UInt8]
    /// The RP ID this credential is scoped to.
    public var rpID: String
    /// The origin the "browser" reports in client data.
    public var origin: String
    /// The counter the next signature carries (0 = an authenticator that keeps none).
    public var signCount: UInt32
    /// The flags of the next authenticator data (UP and UV by default; BE/BS when synced).
    public var flags: UInt8
    /// The user handle this authenticator stored at registration.
    public var userHandle: [UInt8] = []

    /// A new credential: `algorithm`'s key, a random 32-byte id (or `credentialID`, as a reset
    /// authenticator might reuse one), counter `signCount`. Passkeys have no PS256 here
    /// (``COSEAlgorithm``), so that algorithm is refused.
    public init(
        algorithm: SignatureAlgorithm = .es256, rpID: String, origin: String, signCount: UInt32 = 1,
        synced: Bool = false, credentialID: [UInt8]? = nil
    ) throws {
        guard let coseAlgorithm = COSEAlgorithm(algorithm) else {
            throw KeyError.unsupportedKeyType("\(algorithm.rawValue) passkey")
        }
        self.coseAlgorithm = coseAlgorithm
        key = try SigningKey.generate(algorithm)
        self.credentialID = credentialID ?? SecureRandom.bytes(count: 32)
        self.rpID = rpID
        self.origin = origin
        self.signCount = signCount
        flags =
            AuthenticatorData.userPresent | AuthenticatorData.userVerified
            | (synced ? AuthenticatorData.backupEligible | AuthenticatorData.backedUp : 0)
    }

    /// The credential public key as COSE_Key CBOR.
    public var coseKey: [UInt8] {
        let jwk = key.publicJWK
        let decode = { (member: String?) in member.flatMap(Base64URL.decode) ?? [] }
        var pairs = [CBORPair(.unsigned(3), .negative(UInt64(-(coseAlgorithm.rawValue + 1))))]
        switch coseAlgorithm {
        case .es256:
            pairs += [
                CBORPair(.unsigned(1), .unsigned(2)), CBORPair(.negative(0), .unsigned(1)),
                CBORPair(.negative(1), .bytes(decode(jwk.x))), CBORPair(.negative(2), .bytes(decode(jwk.y))),
            ]
        case .edDSA:
            pairs += [
                CBORPair(.unsigned(1), .unsigned(1)), CBORPair(.negative(0), .unsigned(6)),
                CBORPair(.negative(1), .bytes(decode(jwk.x))),
            ]
        case .rs256:
            pairs += [
                CBORPair(.unsigned(1), .unsigned(3)), CBORPair(.negative(0), .bytes(decode(jwk.modulus))),
                CBORPair(.negative(1), .bytes(decode(jwk.exponent))),
            ]
        }
        return CBORValue.map(pairs).encoded()
    }

    /// `clientDataJSON` for `type` and `challenge`, with `origin` unless another is given.
    public func clientData(type: String, challenge: [UInt8], origin: String? = nil, crossOrigin: Bool = false)
        -> [UInt8]
    {
        let object: JSONValue = [
            "type": .string(type), "challenge": .string(Base64URL.encode(challenge)),
            "origin": .string(origin ?? self.origin), "crossOrigin": .bool(crossOrigin),
        ]
        return Array(object.jsonString.utf8)
    }

    /// Authenticator data with this credential's RP ID hash (or `rpIDHash`), flags and counter;
    /// with attested credential data when `attested`.
    public func authenticatorData(attested: Bool, rpIDHash: [UInt8]? = nil) -> [UInt8] {
        var bytes = rpIDHash ?? Digest.sha256.hash(Array(rpID.utf8))
        bytes.append(flags | (attested ? AuthenticatorData.attestedCredentialDataIncluded : 0))
        bytes += [
            UInt8(signCount >> 24), UInt8(signCount >> 16 & 0xff), UInt8(signCount >> 8 & 0xff),
            UInt8(signCount & 0xff),
        ]
        if attested {
            bytes += [UInt8](repeating: 0, count: 16)
            bytes += [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xff)]
            bytes += credentialID
            bytes += coseKey
        }
        return bytes
    }

    /// An attestation object in `format` (`none`, or `packed` self attestation) over `authData`.
    public func attestationObject(format: String = "none", authData: [UInt8], clientDataJSON: [UInt8]) -> [UInt8] {
        var statement: [CBORPair] = []
        if format == "packed" {
            let signature = key.coseSignature(of: authData + Digest.sha256.hash(clientDataJSON)) ?? []
            statement = [
                CBORPair(.text("alg"), .negative(UInt64(-(coseAlgorithm.rawValue + 1)))),
                CBORPair(.text("sig"), .bytes(signature)),
            ]
        }
        return CBORValue.map([
            CBORPair(.text("fmt"), .text(format)), CBORPair(.text("attStmt"), .map(statement)),
            CBORPair(.text("authData"), .bytes(authData)),
        ]).encoded()
    }

    /// A whole registration response for `challenge`: client data and attestation object.
    public func register(challenge: [UInt8], format: String = "none") -> (
        clientDataJSON: [UInt8], attestationObject: [UInt8]
    ) {
        let clientDataJSON = clientData(type: "webauthn.create", challenge: challenge)
        let authData = authenticatorData(attested: true)
        return (clientDataJSON, attestationObject(format: format, authData: authData, clientDataJSON: clientDataJSON))
    }

    /// A whole assertion for `challenge`, its counter first moved on by one when it counts.
    public mutating func assert(challenge: [UInt8]) -> (
        clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8]
    ) {
        if signCount != 0 { signCount += 1 }
        let clientDataJSON = clientData(type: "webauthn.get", challenge: challenge)
        let authData = authenticatorData(attested: false)
        let signature = key.coseSignature(of: authData + Digest.sha256.hash(clientDataJSON)) ?? []
        return (clientDataJSON, authData, signature)
    }
}
