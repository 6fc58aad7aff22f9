#if os(Linux)
    import PorticoCrypto

    /// DPoP keys on Linux: P-256 through PorticoCrypto (OpenSSL), kept as PKCS#8 PEM.
    extension DPoPKey {
        /// A fresh P-256 key from OpenSSL's CSPRNG.
        static func generate() throws(AuthorizationError) -> DPoPKey {
            do {
                return try DPoPKey(SigningKey.generate(.es256))
            } catch {
                throw AuthorizationError(.storage, "cannot make a DPoP key", underlyingError: error)
            }
        }

        /// The key a PEM file (``pemRepresentation``) holds; throws for anything but P-256.
        static func load(pem: String) throws(AuthorizationError) -> DPoPKey {
            do {
                let key = try SigningKey(pem: pem)
                guard key.algorithm == .es256 else {
                    throw AuthorizationError(.storage, "the stored DPoP key is not a P-256 key")
                }
                return try DPoPKey(key)
            } catch let error as AuthorizationError {
                throw error
            } catch {
                throw AuthorizationError(.storage, "the stored DPoP key cannot be read", underlyingError: error)
            }
        }

        private convenience init(_ key: SigningKey) throws(AuthorizationError) {
            guard let x = key.publicJWK.x, let y = key.publicJWK.y else {
                throw AuthorizationError(.storage, "the DPoP key has no public point")
            }
            self.init(x: x, y: y, pemRepresentation: key.pemRepresentation) { key.signature(of: $0) }
        }
    }
#endif
