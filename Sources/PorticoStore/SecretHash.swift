import PorticoCrypto

/// The one place where presented secrets (session ids, codes, refresh tokens, device codes,
/// client secrets) become what the database keeps: their SHA-256.
public enum SecretHash {
    /// The SHA-256 of a presented secret's UTF-8 bytes.
    public static func digest(_ presented: String) -> [UInt8] {
        Digest.sha256.hash(presented)
    }

    /// The printable reference of a secret: base64url of its SHA-256. Safe to log and show,
    /// useless to present.
    public static func reference(_ presented: String) -> String {
        Base64URL.encode(digest(presented))
    }

    /// The printable form of stored hash bytes.
    public static func reference(bytes: [UInt8]) -> String {
        Base64URL.encode(bytes)
    }

    /// The bytes behind a reference, or nil when it is not one (then nothing can match it).
    public static func bytes(reference: String) -> [UInt8]? {
        guard let bytes = Base64URL.decode(reference), bytes.count == 32 else { return nil }
        return bytes
    }
}
