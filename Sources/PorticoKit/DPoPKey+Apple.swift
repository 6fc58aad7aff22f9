#if !os(Linux) && canImport(CryptoKit)
    import CryptoKit
    import Foundation

    /// DPoP keys on Apple platforms: CryptoKit P-256, in the Secure Enclave when there is one.
    /// The twin of `DPoPKey+OpenSSL.swift` (which the tests run), with the same members.
    extension DPoPKey {
        /// What a Keychain item holds for a key: a tag byte, then the key's representation.
        private enum Kind: UInt8 {
            /// A Secure Enclave key's `dataRepresentation` (usable on this device only).
            case secureEnclave = 1
            /// A software key's `rawRepresentation`.
            case software = 2
        }

        /// A fresh software P-256 key.
        static func generate() throws(AuthorizationError) -> DPoPKey {
            try software(P256.Signing.PrivateKey())
        }

        /// The key a PEM file (``pemRepresentation``) holds.
        static func load(pem: String) throws(AuthorizationError) -> DPoPKey {
            do {
                return try software(try P256.Signing.PrivateKey(pemRepresentation: pem))
            } catch {
                throw AuthorizationError(.storage, "the stored DPoP key cannot be read", underlyingError: error)
            }
        }

        /// A fresh key for the Keychain: in the Secure Enclave where available (it never leaves
        /// it; usable after the first unlock, so background refreshes work), else in software.
        /// Returns the key and the bytes to keep in the Keychain item.
        static func generateForKeychain() throws(AuthorizationError) -> (key: DPoPKey, item: Data) {
            // CryptoKit's default access control: after the first unlock, this device only.
            if SecureEnclave.isAvailable, let key = try? SecureEnclave.P256.Signing.PrivateKey() {
                let item = Data([Kind.secureEnclave.rawValue]) + key.dataRepresentation
                return (try load(keychainItem: item), item)
            }
            let key = P256.Signing.PrivateKey()
            return (try software(key), Data([Kind.software.rawValue]) + key.rawRepresentation)
        }

        /// The key a Keychain item made by ``generateForKeychain()`` holds.
        static func load(keychainItem item: Data) throws(AuthorizationError) -> DPoPKey {
            guard let tag = item.first, let kind = Kind(rawValue: tag) else {
                throw AuthorizationError(.storage, "the keychain's DPoP key item is not a key")
            }
            let bytes = Data(item.dropFirst())
            do {
                switch kind {
                case .secureEnclave:
                    let key = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: bytes)
                    return try make(publicKey: key.publicKey, pem: nil) { message in
                        // Re-made per signature from its (opaque, device-bound) handle, which is Sendable.
                        try? SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: bytes)
                            .signature(for: message).rawRepresentation
                    }
                case .software:
                    return try software(try P256.Signing.PrivateKey(rawRepresentation: bytes))
                }
            } catch let error as AuthorizationError {
                throw error
            } catch {
                throw AuthorizationError(.storage, "the keychain's DPoP key cannot be used", underlyingError: error)
            }
        }

        private static func software(_ key: P256.Signing.PrivateKey) throws(AuthorizationError) -> DPoPKey {
            let raw = key.rawRepresentation
            return try make(publicKey: key.publicKey, pem: key.pemRepresentation) { message in
                try? P256.Signing.PrivateKey(rawRepresentation: raw).signature(for: message).rawRepresentation
            }
        }

        private static func make(
            publicKey: P256.Signing.PublicKey, pem: String?, signer: @escaping @Sendable (Data) -> Data?
        ) throws(AuthorizationError) -> DPoPKey {
            // x963: 0x04 || x (32) || y (32).
            let point = [UInt8](publicKey.x963Representation)
            guard point.count == 65, point[0] == 0x04 else {
                throw AuthorizationError(.storage, "the DPoP key's public point is not P-256")
            }
            return DPoPKey(
                x: Base64URLCoding.encode(point[1..<33]), y: Base64URLCoding.encode(point[33..<65]),
                pemRepresentation: pem
            ) { message in signer(Data(message)).map { [UInt8]($0) } }
        }
    }
#endif
