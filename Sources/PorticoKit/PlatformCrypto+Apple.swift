#if !os(Linux) && canImport(CryptoKit)
    import CryptoKit
    import Foundation
    import Security

    /// The SDK's only cryptography on Apple platforms: CryptoKit and Security, with the same
    /// three members as the OpenSSL version in `PlatformCrypto.swift` (which the tests run).
    enum PlatformCrypto {
        /// The SHA-256 digest of `bytes`.
        static func sha256(_ bytes: [UInt8]) -> [UInt8] {
            Array(SHA256.hash(data: bytes))
        }

        /// `count` bytes from the system's secure random source.
        static func randomBytes(_ count: Int) -> [UInt8] {
            var output = [UInt8](repeating: 0, count: count)
            guard count > 0 else { return output }
            let status = output.withUnsafeMutableBytes { buffer -> OSStatus in
                guard let base = buffer.baseAddress else { return errSecAllocate }
                return SecRandomCopyBytes(kSecRandomDefault, buffer.count, base)
            }
            // A failing system RNG must stop the process rather than hand out guessable secrets.
            precondition(status == errSecSuccess, "SecRandomCopyBytes failed: no secure randomness available")
            return output
        }

        /// Whether `token` carries a valid signature by `key` with the token's own algorithm.
        /// The caller has already checked that `key` is the token's `kid` and that its
        /// algorithm is the token's; RSA keys under 2048 bits are refused.
        static func isValidSignature(of token: CompactJWS, key: JSONWebKey) -> Bool {
            let message = Data(token.signingInput)
            switch token.algorithm {
            case .rs256, .ps256:
                guard let modulus = key.modulus.flatMap(Base64URLCoding.decode),
                    let exponent = key.exponent.flatMap(Base64URLCoding.decode),
                    RSAPublicKeyDER.bitLength(ofModulus: modulus) >= 2048
                else { return false }
                let attributes: [String: Any] = [
                    kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
                    kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
                ]
                var error: Unmanaged<CFError>?
                let der = Data(RSAPublicKeyDER.encode(modulus: modulus, exponent: exponent))
                guard let secKey = SecKeyCreateWithData(der as CFData, attributes as CFDictionary, &error) else {
                    return false
                }
                // Security's PSS-SHA256 is RFC 7518 §3.5's PS256: MGF1 with SHA-256, a 32-byte salt.
                let algorithm: SecKeyAlgorithm =
                    token.algorithm == .ps256 ? .rsaSignatureMessagePSSSHA256 : .rsaSignatureMessagePKCS1v15SHA256
                return SecKeyVerifySignature(
                    secKey, algorithm, message as CFData, Data(token.signature) as CFData, &error)
            case .es256:
                // JWS ES256 signatures are raw r || s (RFC 7518 §3.4), not DER.
                guard let x = key.x.flatMap(Base64URLCoding.decode), let y = key.y.flatMap(Base64URLCoding.decode),
                    x.count == 32, y.count == 32,
                    let publicKey = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y),
                    let signature = try? P256.Signing.ECDSASignature(rawRepresentation: token.signature)
                else { return false }
                return publicKey.isValidSignature(signature, for: message)
            case .edDSA:
                guard let x = key.x.flatMap(Base64URLCoding.decode), x.count == 32,
                    let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: x)
                else { return false }
                return publicKey.isValidSignature(token.signature, for: message)
            }
        }
    }
#endif
