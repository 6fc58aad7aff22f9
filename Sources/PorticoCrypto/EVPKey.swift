import COpenSSL
import Foundation

/// Owns one parsed OpenSSL key (`EVP_PKEY`) and performs the JWS signature operations on it.
///
/// `@unchecked Sendable` is honest here: the only stored properties are `let`s, the pointer is
/// never mutated after the initializer, and it is freed only in `deinit`. OpenSSL 3 documents
/// (openssl-threads(7)) that an `EVP_PKEY` may be used from many threads at once for signing
/// and verification as long as nobody modifies it; every operation below works on its own
/// `EVP_MD_CTX` (a copy of a template that nobody modifies either), so no per-operation state
/// is shared.
final class EVPKey: @unchecked Sendable {
    /// The key; owned by this object.
    let pointer: OpaquePointer
    /// The one JWS algorithm this key is used with.
    let algorithm: SignatureAlgorithm
    /// Whether the key holds its private half and can sign.
    let hasPrivateKey: Bool
    /// The exact length of this key's JWS signatures.
    let signatureLength: Int
    /// A signing context set up once for this key, which every signature copies
    /// (`EVP_MD_CTX_copy_ex`) instead of setting up its own; nil when there is none.
    ///
    /// Why: `EVP_DigestSignInit` looks the algorithm up in OpenSSL 3's provider store each time,
    /// under locks that every thread takes. Measured in C on this machine (loaded), an ES256
    /// signature cost 27 µs with one thread and 47 µs with four threads on the two cores when
    /// each set up its own context, against 18 and 27 µs when copying one prepared context. The
    /// templates are never updated after the initializer, so copying them from many threads
    /// only reads them. Ed25519 gets none (its contexts are one-shot and OpenSSL does not copy
    /// them everywhere); a failed copy also falls back to setting up a context.
    private let signTemplate: OpaquePointer?
    /// The same for verification.
    private let verifyTemplate: OpaquePointer?

    private init(pointer: OpaquePointer, algorithm: SignatureAlgorithm, hasPrivateKey: Bool, signatureLength: Int) {
        self.pointer = pointer
        self.algorithm = algorithm
        self.hasPrivateKey = hasPrivateKey
        self.signatureLength = signatureLength
        signTemplate =
            algorithm == .edDSA || !hasPrivateKey
            ? nil : Self.template { Self.initialize($0, signing: true, with: pointer, algorithm) }
        verifyTemplate =
            algorithm == .edDSA ? nil : Self.template { Self.initialize($0, signing: false, with: pointer, algorithm) }
    }

    deinit {
        EVP_MD_CTX_free(signTemplate)
        EVP_MD_CTX_free(verifyTemplate)
        EVP_PKEY_free(pointer)
    }

    /// A new context that `initialize` set up, or nil when it failed.
    private static func template(_ initialize: (OpaquePointer) -> Int32) -> OpaquePointer? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        guard initialize(context) == 1 else {
            ERR_clear_error()
            EVP_MD_CTX_free(context)
            return nil
        }
        return context
    }

    /// Sets `context` up to sign (or verify) with `key` and `algorithm`: the digest, and for
    /// PS256 the PSS padding of RFC 7518 §3.5 (MGF1 with SHA-256, a salt as long as the digest,
    /// which verification then requires exactly). The padding lives in the key context that
    /// `EVP_DigestSignInit` makes, so it is set before a template is ever copied, and each copy
    /// carries it. Returns 1 on success, as OpenSSL does.
    private static func initialize(
        _ context: OpaquePointer, signing: Bool, with key: OpaquePointer, _ algorithm: SignatureAlgorithm
    ) -> Int32 {
        let digest = algorithm == .edDSA ? nil : EVP_sha256()
        var keyContext: OpaquePointer?
        let initialized =
            signing
            ? EVP_DigestSignInit(context, &keyContext, digest, nil, key)
            : EVP_DigestVerifyInit(context, &keyContext, digest, nil, key)
        guard initialized == 1, algorithm == .ps256 else { return initialized }
        guard let keyContext, EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
            EVP_PKEY_CTX_set_rsa_mgf1_md(keyContext, EVP_sha256()) == 1,
            EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, RSA_PSS_SALTLEN_DIGEST) == 1
        else { return 0 }
        return 1
    }

    /// A context for one operation: a copy of `template`, or one that `initialize` sets up
    /// when there is no template or the copy failed; nil when OpenSSL fails (out of memory).
    private static func context(copying template: OpaquePointer?, or initialize: (OpaquePointer) -> Int32)
        -> OpaquePointer?
    {
        guard let context = EVP_MD_CTX_new() else { return nil }
        if let template, EVP_MD_CTX_copy_ex(context, template) == 1 { return context }
        ERR_clear_error()
        EVP_MD_CTX_reset(context)
        guard initialize(context) == 1 else {
            ERR_clear_error()
            EVP_MD_CTX_free(context)
            return nil
        }
        return context
    }

    /// The smallest RSA modulus accepted anywhere (RFC 7518 §3.3).
    static let minimumRSABits = 2048

    /// Wraps `pointer`, taking ownership; frees it and throws if the key is not one Portico uses.
    /// The key's type decides its algorithm, RS256 for RSA unless `algorithm` says PS256.
    static func adopt(
        _ pointer: OpaquePointer, hasPrivateKey: Bool, as algorithm: SignatureAlgorithm? = nil
    ) throws(KeyError) -> EVPKey {
        do {
            let resolved = try classify(pointer, as: algorithm)
            return EVPKey(
                pointer: pointer, algorithm: resolved, hasPrivateKey: hasPrivateKey,
                signatureLength: signatureLength(of: pointer, resolved))
        } catch {
            EVP_PKEY_free(pointer)
            throw error
        }
    }

    /// The length of every JWS signature `pointer` makes with `algorithm`.
    private static func signatureLength(of pointer: OpaquePointer, _ algorithm: SignatureAlgorithm) -> Int {
        algorithm.isRSA ? Int(EVP_PKEY_get_size(pointer)) : 64
    }

    /// This key used with the algorithm a JWK's `alg` names (`declared`), or as it is when the
    /// JWK names none; throws when the name is unknown or the key type cannot do it.
    func using(declared: String?) throws(KeyError) -> EVPKey {
        guard let declared else { return self }
        guard let algorithm = SignatureAlgorithm(rawValue: declared) else { throw .algorithmMismatch(declared) }
        return try using(algorithm)
    }

    /// This same key (shared, not copied) used with `algorithm` instead: an RSA key's RS256 and
    /// PS256 forms, for a client JWK that names neither. Throws if the key type cannot do it.
    func using(_ algorithm: SignatureAlgorithm) throws(KeyError) -> EVPKey {
        guard algorithm != self.algorithm else { return self }
        guard algorithm.keyType == self.algorithm.keyType else { throw .algorithmMismatch(algorithm.rawValue) }
        guard EVP_PKEY_up_ref(pointer) == 1 else { throw .generationFailed }
        return EVPKey(
            pointer: pointer, algorithm: algorithm, hasPrivateKey: hasPrivateKey,
            signatureLength: Self.signatureLength(of: pointer, algorithm))
    }

    /// The algorithm of `pointer`'s key type, or `algorithm` when that type can do it.
    private static func classify(_ pointer: OpaquePointer, as algorithm: SignatureAlgorithm?) throws(KeyError)
        -> SignatureAlgorithm
    {
        let implied = try classify(pointer)
        guard let algorithm, algorithm != implied else { return implied }
        guard algorithm.keyType == implied.keyType else { throw .algorithmMismatch(algorithm.rawValue) }
        return algorithm
    }

    private static func classify(_ pointer: OpaquePointer) throws(KeyError) -> SignatureAlgorithm {
        switch EVP_PKEY_get_base_id(pointer) {
        case EVP_PKEY_RSA:
            let bits = Int(EVP_PKEY_get_bits(pointer))
            guard bits >= minimumRSABits else { throw .rsaKeyTooSmall(bits: bits) }
            return .rs256
        case EVP_PKEY_EC:
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(pointer, &name, name.count, &length) == 1 else {
                throw .unsupportedKeyType("EC without a named curve")
            }
            let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard curve == "prime256v1" || curve == "P-256" else { throw .unsupportedKeyType("EC \(curve)") }
            return .es256
        case EVP_PKEY_ED25519:
            return .edDSA
        case let other:
            throw .unsupportedKeyType(OBJ_nid2sn(other).map { String(cString: $0) } ?? "key type \(other)")
        }
    }

    // MARK: Generation and PEM

    /// A new key for `algorithm` (RSA keys of `rsaBits` bits).
    static func generate(_ algorithm: SignatureAlgorithm, rsaBits: Int = 2048) throws(KeyError) -> EVPKey {
        let name =
            switch algorithm {
            case .rs256, .ps256: "RSA"
            case .es256: "EC"
            case .edDSA: "ED25519"
            }
        guard !algorithm.isRSA || rsaBits >= minimumRSABits else { throw .rsaKeyTooSmall(bits: rsaBits) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, name, nil) else { throw .generationFailed }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw .generationFailed }
        switch algorithm {
        case .rs256, .ps256:
            guard EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(rsaBits)) == 1 else { throw .generationFailed }
        case .es256:
            guard EVP_PKEY_CTX_set_group_name(context, "P-256") == 1 else { throw .generationFailed }
        case .edDSA:
            break
        }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else {
            ERR_clear_error()
            throw .generationFailed
        }
        return try adopt(key, hasPrivateKey: true, as: algorithm)
    }

    /// Reads a PEM private key (PKCS#8 or the traditional RSA/EC forms). Encrypted PEM is
    /// refused rather than prompting on the terminal, which OpenSSL's default callback would do.
    /// PEM says nothing of the algorithm: an RSA key is RS256 unless `algorithm` says PS256.
    static func fromPEM(_ pem: String, as algorithm: SignatureAlgorithm? = nil) throws(KeyError) -> EVPKey {
        let bytes = Array(pem.utf8)
        guard bytes.count < Int(Int32.max) else { throw .invalidPEM }
        let key: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let key else {
            ERR_clear_error()
            throw .invalidPEM
        }
        return try adopt(key, hasPrivateKey: true, as: algorithm)
    }

    /// The private key as PKCS#8 PEM, unencrypted; callers keep it in 0600 files or the database.
    var pemRepresentation: String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil) == 1 else {
            ERR_clear_error()
            return ""
        }
        var data: UnsafeMutablePointer<CChar>?
        let length = portico_bio_get_mem_data(bio, &data)
        guard let data, length > 0 else { return "" }
        return String(
            decoding: UnsafeRawBufferPointer(start: data, count: Int(length)).bindMemory(to: UInt8.self), as: UTF8.self)
    }

    // MARK: Public parameters

    /// A big-number parameter of the key as minimal big-endian bytes, or left-padded to `width`.
    func bigNumberParameter(_ name: String, width: Int? = nil) -> [UInt8]? {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pointer, name, &number) == 1, let number else {
            ERR_clear_error()
            return nil
        }
        defer { BN_free(number) }
        let length = width ?? Int((BN_num_bits(number) + 7) / 8)
        var bytes = [UInt8](repeating: 0, count: length)
        guard BN_bn2binpad(number, &bytes, Int32(length)) == Int32(length) else { return nil }
        return bytes
    }

    /// The public key as a JWK (RFC 7518 §6, RFC 8037 §2) with `alg`, `use` and `kid` unset.
    func publicJWK() -> JWK {
        switch algorithm {
        case .rs256, .ps256:
            return JWK(
                keyType: "RSA",
                modulus: bigNumberParameter(OSSL_PKEY_PARAM_RSA_N).map(Base64URL.encode),
                exponent: bigNumberParameter(OSSL_PKEY_PARAM_RSA_E).map(Base64URL.encode))
        case .es256:
            return JWK(
                keyType: "EC", curve: "P-256",
                x: bigNumberParameter(OSSL_PKEY_PARAM_EC_PUB_X, width: 32).map(Base64URL.encode),
                y: bigNumberParameter(OSSL_PKEY_PARAM_EC_PUB_Y, width: 32).map(Base64URL.encode))
        case .edDSA:
            var bytes = [UInt8](repeating: 0, count: 32)
            var length = bytes.count
            let ok = EVP_PKEY_get_raw_public_key(pointer, &bytes, &length) == 1 && length == 32
            return JWK(keyType: "OKP", curve: "Ed25519", x: ok ? Base64URL.encode(bytes) : nil)
        }
    }

    // MARK: Signing and verification

    /// The JWS signature of `message`: PKCS#1 v1.5 or PSS bytes, raw R‖S for ES256, or the
    /// Ed25519 signature. Nil only if OpenSSL fails internally (out of memory).
    func sign(_ message: UnsafeRawBufferPointer) -> [UInt8]? {
        guard hasPrivateKey,
            let context = Self.context(
                copying: signTemplate, or: { Self.initialize($0, signing: true, with: pointer, algorithm) })
        else { return nil }
        defer { EVP_MD_CTX_free(context) }
        var length = Int(EVP_PKEY_get_size(pointer))
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message.baseAddress, message.count) == 1 else {
            ERR_clear_error()
            return nil
        }
        signature.removeSubrange(length...)
        return algorithm == .es256 ? Self.rawSignature(fromDER: signature) : signature
    }

    /// The signature of `message` as OpenSSL makes it (ECDSA as ASN.1 DER): the form COSE
    /// and WebAuthn authenticators use. Nil only if OpenSSL fails internally.
    func signEncoded(_ message: UnsafeRawBufferPointer) -> [UInt8]? {
        guard algorithm == .es256 else { return sign(message) }
        return sign(message).flatMap(Self.derSignature(fromRaw:))
    }

    /// Whether `signature` is this key's valid JWS signature of `message`.
    func verify(_ signature: [UInt8], of message: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == signatureLength else { return false }
        let presented: [UInt8]
        if algorithm == .es256 {
            guard let der = Self.derSignature(fromRaw: signature) else { return false }
            presented = der
        } else {
            presented = signature
        }
        return verify(encoded: presented, of: message)
    }

    /// Whether `presented` (ECDSA as ASN.1 DER, the form OpenSSL, COSE and WebAuthn use) is
    /// this key's valid signature of `message`.
    func verify(encoded presented: [UInt8], of message: UnsafeRawBufferPointer) -> Bool {
        guard
            let context = Self.context(
                copying: verifyTemplate, or: { Self.initialize($0, signing: false, with: pointer, algorithm) })
        else { return false }
        defer { EVP_MD_CTX_free(context) }
        let result = EVP_DigestVerify(context, presented, presented.count, message.baseAddress, message.count)
        if result != 1 { ERR_clear_error() }
        return result == 1
    }

    /// Converts OpenSSL's DER `ECDSA-Sig-Value` to JOSE's fixed 64-byte R‖S (RFC 7518 §3.4).
    static func rawSignature(fromDER der: [UInt8]) -> [UInt8]? {
        der.withUnsafeBufferPointer { buffer -> [UInt8]? in
            var cursor = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else {
                ERR_clear_error()
                return nil
            }
            defer { ECDSA_SIG_free(signature) }
            var r: OpaquePointer?
            var s: OpaquePointer?
            ECDSA_SIG_get0(signature, &r, &s)
            var raw = [UInt8](repeating: 0, count: 64)
            let ok = raw.withUnsafeMutableBufferPointer { out in
                guard let base = out.baseAddress else { return false }
                return BN_bn2binpad(r, base, 32) == 32 && BN_bn2binpad(s, base + 32, 32) == 32
            }
            return ok ? raw : nil
        }
    }

    /// Converts JOSE's 64-byte R‖S to the DER form OpenSSL verifies.
    static func derSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let parts: (OpaquePointer?, OpaquePointer?) = raw.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return (nil, nil) }
            return (BN_bin2bn(base, 32, nil), BN_bin2bn(base + 32, 32, nil))
        }
        guard let r = parts.0, let s = parts.1, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(parts.0)
            BN_free(parts.1)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }
}
