import COpenSSL
import Foundation

/// A private key that signs tokens with one algorithm, parsed once and kept for the process.
///
/// Parsing PEM or JWK costs far more than a signature, so a `SigningKey` holds the parsed
/// OpenSSL key for its whole life (freed when the last reference goes). It is immutable and
/// `Sendable`: the token endpoint's threads all sign with the same instance at once, which
/// OpenSSL 3 supports because each signature uses its own `EVP_MD_CTX`.
public final class SigningKey: Sendable {
    /// The algorithm every signature of this key uses.
    public let algorithm: SignatureAlgorithm
    /// The `kid` written into every token header; by default the RFC 7638 thumbprint.
    public let keyID: String
    /// The public JWK with `kid`, `alg` and `use: "sig"`, ready for the JWKS document.
    public let publicJWK: JWK
    /// The public half, for verifying this key's own tokens without a JWKS round trip.
    public let verificationKey: VerificationKey
    /// The parsed private key.
    let key: EVPKey

    private init(key: EVPKey, keyID: String?) throws(KeyError) {
        guard key.hasPrivateKey else { throw .missingPrivateKey }
        var jwk = key.publicJWK()
        let resolvedKeyID: String
        if let keyID { resolvedKeyID = keyID } else { resolvedKeyID = try jwk.thumbprint() }
        jwk.keyID = resolvedKeyID
        jwk.algorithm = key.algorithm.rawValue
        jwk.use = "sig"
        self.key = key
        self.algorithm = key.algorithm
        self.keyID = resolvedKeyID
        self.publicJWK = jwk
        self.verificationKey = VerificationKey(key: key, keyID: resolvedKeyID, jwk: jwk)
    }

    /// A fresh key: RSA 2048-bit (for RS256 or PS256, never both), P-256 or Ed25519, from
    /// OpenSSL's CSPRNG.
    public static func generate(_ algorithm: SignatureAlgorithm) throws(KeyError) -> SigningKey {
        try SigningKey(key: EVPKey.generate(algorithm), keyID: nil)
    }

    /// A fresh RSA key of `bits` bits (at least 2048), for deployments that want 3072 or 4096;
    /// `algorithm` is RS256 or PS256.
    public static func generateRSA(bits: Int, algorithm: SignatureAlgorithm = .rs256) throws(KeyError) -> SigningKey {
        guard algorithm.isRSA else { throw .algorithmMismatch(algorithm.rawValue) }
        return try SigningKey(key: EVPKey.generate(algorithm, rsaBits: bits), keyID: nil)
    }

    /// Loads a PEM private key (PKCS#8, or traditional RSA/EC). Encrypted PEM, RSA keys under
    /// 2048 bits and curves other than P-256 and Ed25519 are refused. `keyID` overrides the
    /// thumbprint when the key's id is stored elsewhere. PEM does not say which RSA algorithm
    /// a key is for: it is RS256 unless `algorithm` says PS256 (a stored key's own algorithm).
    public convenience init(pem: String, keyID: String? = nil, algorithm: SignatureAlgorithm? = nil) throws(KeyError) {
        try self.init(key: EVPKey.fromPEM(pem, as: algorithm), keyID: keyID)
    }

    /// Imports a private JWK; its `kid` is kept (or the thumbprint used) and its `alg`, when
    /// present, must match the key type (an RSA key is RS256 unless it says PS256). The key
    /// pair is checked to belong together.
    public convenience init(jwk: JWK) throws(KeyError) {
        guard jwk.isPrivate else { throw .missingPrivateKey }
        let key = try EVPKey.fromJWK(jwk).using(declared: jwk.algorithm)
        try self.init(key: key, keyID: jwk.keyID)
    }

    /// Loads a PEM private key file written by `write(to:)` or by `openssl genpkey`; an RSA key
    /// is RS256's unless `algorithm` says PS256, as for ``init(pem:keyID:algorithm:)``.
    public convenience init(contentsOf url: URL, keyID: String? = nil, algorithm: SignatureAlgorithm? = nil)
        throws(KeyError)
    {
        let bytes = try Self.readKeyFile(url.path)
        try self.init(pem: String(decoding: bytes, as: UTF8.self), keyID: keyID, algorithm: algorithm)
    }

    /// The bytes of a key file, read with POSIX calls so failures carry their `errno`.
    private static func readKeyFile(_ path: String) throws(KeyError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .fileSystem(path: path, errno: errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(path: path, errno: errno)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
            // No PEM key is anywhere near a megabyte; refuse to slurp whatever else is there.
            if bytes.count > 1 << 20 { throw .invalidPEM }
        }
    }

    /// The private key as unencrypted PKCS#8 PEM. Keep it secret: store it only in 0600 files
    /// (see `write(to:)`) or an access-controlled database.
    public var pemRepresentation: String {
        key.pemRepresentation
    }

    /// Writes the PEM to `url` atomically with mode 0600. The file is created 0600 from the
    /// start (`O_CREAT | O_EXCL`, then `rename`), so the key is never readable by others, not
    /// even for an instant; an existing file at `url` is replaced.
    public func write(to url: URL) throws(KeyError) {
        let path = url.path
        let temporary = path + ".tmp-" + SecureRandom.token(bits: 64)
        let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .fileSystem(path: temporary, errno: errno) }
        var failure = writeAll(descriptor, Array(pemRepresentation.utf8))
        if failure == 0 && fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0 && failure == 0 { failure = errno }
        if failure == 0 && rename(temporary, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw .fileSystem(path: path, errno: failure)
        }
    }
}

/// Writes all of `bytes` to `descriptor`, retrying short writes; returns 0 or the `errno`.
private func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Int32 {
    var written = 0
    while written < bytes.count {
        let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if result < 0 {
            if errno == EINTR { continue }
            return errno
        }
        written += result
    }
    return 0
}

extension SigningKey {
    /// The signature of `message` in the form COSE and WebAuthn authenticators make it (ECDSA
    /// as ASN.1 DER rather than JOSE's R‖S): what a software authenticator, in the tests and
    /// the benchmark, signs assertions with. Nil only if OpenSSL fails internally.
    public func coseSignature(of message: [UInt8]) -> [UInt8]? {
        message.withUnsafeBytes { key.signEncoded($0) }
    }
}

extension SigningKey {
    /// The JWS signature of `message` (RFC 7518 §3: ECDSA as raw R‖S), for a caller that builds
    /// its own JWS, as the SDK's DPoP proofs do. Nil only if OpenSSL fails internally.
    public func signature(of message: [UInt8]) -> [UInt8]? {
        message.withUnsafeBytes { key.sign($0) }
    }
}
