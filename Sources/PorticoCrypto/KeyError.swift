/// Why a key could not be generated, loaded, imported or written.
///
/// Keys come from files, the database and JWK documents; each failure names its cause so that
/// an operator sees "RSA key too small" rather than a generic OpenSSL failure.
public enum KeyError: Error, Sendable, Equatable {
    /// The key is of a type or curve Portico does not sign with (for example P-384 or DSA).
    case unsupportedKeyType(String)
    /// An RSA key is smaller than the 2048 bits RFC 7518 §3.3 requires.
    case rsaKeyTooSmall(bits: Int)
    /// The text is not a PEM private key OpenSSL can read (or is encrypted).
    case invalidPEM
    /// A JWK member is missing, malformed, or inconsistent with the others; the string names it.
    case invalidJWK(String)
    /// A private JWK's public and private parts do not belong together.
    case inconsistentKeyPair
    /// The JWK's `alg` names an algorithm its key type cannot perform.
    case algorithmMismatch(String)
    /// A private key was needed but the JWK holds only a public key.
    case missingPrivateKey
    /// OpenSSL could not generate a key (it ran out of memory or entropy).
    case generationFailed
    /// Reading or writing the key file failed with this `errno`.
    case fileSystem(path: String, errno: Int32)
}
