#if os(Linux)
    import PorticoCrypto

    /// The SDK's only cryptography: SHA-256, random bytes and JWS signature checks. On Linux it
    /// is OpenSSL through PorticoCrypto; `PlatformCrypto+Apple.swift` is the CryptoKit and
    /// Security twin with the same three members, so nothing else in PorticoKit differs.
    enum PlatformCrypto {
        /// The SHA-256 digest of `bytes`.
        static func sha256(_ bytes: [UInt8]) -> [UInt8] {
            Digest.sha256.hash(bytes)
        }

        /// `count` bytes from the system's secure random source.
        static func randomBytes(_ count: Int) -> [UInt8] {
            SecureRandom.bytes(count: count)
        }

        /// Whether `token` carries a valid signature by `key` with the token's own algorithm.
        /// The caller has already checked that `key` is the token's `kid` and that its
        /// algorithm is the token's; RSA keys under 2048 bits are refused.
        static func isValidSignature(of token: CompactJWS, key: JSONWebKey) -> Bool {
            guard let algorithm = SignatureAlgorithm(rawValue: token.algorithm.rawValue) else { return false }
            let jwk = JWK(
                keyType: key.keyType, keyID: token.keyID, algorithm: algorithm.rawValue, curve: key.curve, x: key.x,
                y: key.y, modulus: key.modulus, exponent: key.exponent)
            guard let verificationKey = try? VerificationKey(jwk: jwk) else { return false }
            return (try? JWSVerifier(keys: [verificationKey]).verify(token.text, algorithms: [algorithm])) != nil
        }
    }
#elseif !canImport(CryptoKit)
    #error("PorticoKit needs OpenSSL through PorticoCrypto (Linux) or CryptoKit (Apple platforms)")
#endif
