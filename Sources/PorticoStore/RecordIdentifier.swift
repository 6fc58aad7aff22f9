import Foundation
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

    /// A fresh identifier that sorts after the ones minted before it: 22 characters of the
    /// base64url alphabet, the first 8 the creation time in milliseconds, the other 14 random
    /// (84 bits), never starting with `-`.
    ///
    /// Why: for records written on every token issuance (refresh families, the audit log), a
    /// random key puts each insert on a random page of the key's b-tree, which the database must
    /// read, dirty and log at every commit; keys in time order all land on the b-tree's last
    /// page, which stays in memory. Such an id tells when its record was made, to the
    /// millisecond, and still nothing about how many exist. It is no secret, but it is not only
    /// the database's to see: a refresh token carries its family's id beside 256 random bits of
    /// its own, so whoever holds the token can read when the family began (about when the person
    /// signed in to that app, which the app knows anyway).
    ///
    /// The time is written in the base64url characters taken in byte order (`-`, digits,
    /// capitals, `_`, small letters), so that the ids' byte order, which the backends' indexes
    /// use, is their time order (on PostgreSQL under a byte-order collation such as `C`; under
    /// another collation the order is looser and only the locality is lost). Its first character
    /// is never `-`: it is `V` until 2109, then later capitals, `_` and small letters, until the
    /// 47 bits of milliseconds run out in the year 6429 (later times all get that last stamp).
    public static func timeOrdered(now: Date = Date()) -> String {
        // A clock before 1970, beyond the 47 bits or not a number at all gives the nearest end.
        let limit: UInt64 = 1 << 47 - 1
        let raw = now.timeIntervalSince1970 * 1000
        let milliseconds = raw.isNaN || raw <= 0 ? 0 : raw >= Double(limit) ? limit : UInt64(raw)
        let stamp = 1 << 47 | milliseconds
        var id = ""
        id.reserveCapacity(22)
        for shift in stride(from: 42, through: 0, by: -6) {
            id.unicodeScalars.append(orderedAlphabet[Int(stamp >> UInt64(shift) & 63)])
        }
        id += SecureRandom.token(bits: 84).prefix(14)
        return id
    }

    /// The 64 base64url characters in ascending byte order.
    private static let orderedAlphabet: [Unicode.Scalar] = Array(
        "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".unicodeScalars)
}
