import PorticoCrypto

/// Identifiers for new records.
///
/// Ids are random strings rather than database sequence numbers, so that every backend (and
/// every node of a cluster) can mint them without a round trip and they reveal nothing about
/// how many users or clients exist.
public enum RecordIdentifier {
    /// A fresh identifier: 128 random bits as base64url, 22 characters, never starting with `-`.
    ///
    /// Operators paste ids into commands (`portico client remove ID`), where a leading dash
    /// reads as an option to most tools; one draw in 64 would start with one, so those are
    /// drawn again (the ids stay uniform over the ones that do not).
    public static func random() -> String {
        while true {
            let id = SecureRandom.token(bits: 128)
            if id.first != "-" { return id }
        }
    }
}
