/// A JWS in compact serialization, split and decoded but not yet verified.
///
/// Parsing here is plain Swift and identical on every platform; only the signature check
/// goes through ``PlatformCrypto``.
struct CompactJWS: Sendable {
    /// The token as received.
    let text: String
    /// `BASE64URL(header) "." BASE64URL(payload)`: what the signature covers.
    let signingInput: [UInt8]
    /// The decoded signature.
    let signature: [UInt8]
    /// The header's `alg`, one the SDK accepts.
    let algorithm: JWSAlgorithm
    /// The header's `kid`.
    let keyID: String
    /// The decoded payload's members.
    let claims: [String: ProfileValue]

    /// Tokens longer than this are refused unread.
    static let maximumLength = 16 * 1024

    /// Splits and decodes `text`; throws a one-line reason for anything malformed, `none`,
    /// HMAC, a `crit` header (no extension is understood) or a payload that is not an object.
    init(_ text: String) throws(AuthorizationError) {
        func fail(_ reason: String) -> AuthorizationError {
            AuthorizationError(.invalidResponse, "the ID token failed verification: \(reason)")
        }
        guard text.utf8.count <= Self.maximumLength else { throw fail("it is too large") }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw fail("it is not a compact JWS") }
        guard let headerBytes = Base64URLCoding.decode(parts[0]),
            let header = ProfileValue(parsing: headerBytes)?.objectValue
        else { throw fail("its header is not base64url JSON") }
        guard let name = header["alg"]?.stringValue else { throw fail("its header names no algorithm") }
        guard let algorithm = JWSAlgorithm(rawValue: name) else { throw fail("the algorithm \(name) is not accepted") }
        guard header["crit"] == nil else { throw fail("it has critical header extensions") }
        guard let keyID = header["kid"]?.stringValue else { throw fail("its header names no key") }
        guard let payload = Base64URLCoding.decode(parts[1]), let claims = ProfileValue(parsing: payload)?.objectValue
        else { throw fail("its payload is not a JSON object") }
        guard let signature = Base64URLCoding.decode(parts[2]) else { throw fail("its signature is not base64url") }
        self.text = text
        signingInput = Array(text.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        self.signature = signature
        self.algorithm = algorithm
        self.keyID = keyID
        self.claims = claims
    }
}
