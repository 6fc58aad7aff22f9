import PorticoCrypto

/// Identifiers for new records.
///
/// Ids are random strings rather than database sequence numbers, so that every backend (and
/// every node of a cluster) can mint them without a round trip and they reveal nothing about
/// how many users or clients exist.
public enum RecordIdentifier {
    /// A fresh identifier: 128 random bits as base64url, 22 characters.
    public static func random() -> String {
        SecureRandom.token(bits: 128)
    }
}
