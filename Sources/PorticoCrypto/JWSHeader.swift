/// The protected header of a verified JWS.
///
/// Only produced by `JWSVerifier` after the header has been checked, so `algorithm` is always
/// one the caller allowed and `keyID` names the key that verified the signature.
public struct JWSHeader: Sendable, Hashable {
    /// `alg`.
    public let algorithm: SignatureAlgorithm
    /// `kid`.
    public let keyID: String?
    /// `typ`, as sent (for example "JWT" or "at+jwt").
    public let type: String?
    /// `cty`, as sent.
    public let contentType: String?
    /// `crit`: extension names the signer marked critical (all understood, or verification failed).
    public let critical: [String]
    /// Every header member as sent, including the ones above, for extensions.
    public let parameters: [String: JSONValue]

    /// A header with these members; `JWSVerifier` makes them, tests may too.
    public init(
        algorithm: SignatureAlgorithm, keyID: String?, type: String?, contentType: String?, critical: [String],
        parameters: [String: JSONValue]
    ) {
        self.algorithm = algorithm
        self.keyID = keyID
        self.type = type
        self.contentType = contentType
        self.critical = critical
        self.parameters = parameters
    }

    /// Whether two `typ` values mean the same media type: RFC 7515 §4.1.9 compares them
    /// case-insensitively and lets the `application/` prefix be left out.
    public static func typesMatch(_ first: String, _ second: String) -> Bool {
        normalizedType(first) == normalizedType(second)
    }

    private static func normalizedType(_ type: String) -> String {
        let lowered = type.lowercased()
        return lowered.hasPrefix("application/") ? String(lowered.dropFirst("application/".count)) : lowered
    }
}
