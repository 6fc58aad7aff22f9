/// Proof Key for Code Exchange (RFC 7636) with the `S256` method only.
///
/// Portico requires PKCE on every authorization code and accepts only `S256`, since `plain`
/// gives no protection when the authorization request itself is observed.
public enum PKCE {
    /// The shortest verifier RFC 7636 §4.1 allows.
    public static let minimumVerifierLength = 43
    /// The longest verifier RFC 7636 §4.1 allows.
    public static let maximumVerifierLength = 128

    /// A new verifier of 43 characters carrying 256 bits of entropy, as RFC 7636 §4.1 recommends.
    public static func makeVerifier() -> String {
        SecureRandom.token(bits: 256)
    }

    /// The `S256` challenge for `verifier`: base64url(SHA-256(ASCII(verifier))).
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(Digest.sha256.hash(verifier))
    }

    /// Whether `verifier` has a legal length and uses only the unreserved characters
    /// `[A-Za-z0-9-._~]`; check this before comparing challenges so junk never reaches SHA-256.
    public static func isValidVerifier(_ verifier: String) -> Bool {
        let bytes = verifier.utf8
        guard (minimumVerifierLength...maximumVerifierLength).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                true
            default:
                false
            }
        }
    }

    /// Whether `verifier` is valid and its `S256` challenge equals `challenge`, compared in
    /// constant time; the token endpoint's whole PKCE check in one call.
    public static func verify(_ verifier: String, matches challenge: String) -> Bool {
        guard isValidVerifier(verifier) else { return false }
        return ConstantTime.equals(self.challenge(for: verifier), challenge)
    }
}
