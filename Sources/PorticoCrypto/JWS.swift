/// Signing of JWS compact serializations (RFC 7515 §7.1) and JWTs (RFC 7519).
///
/// This is the token endpoint's inner loop, so it writes JSON by hand rather than through
/// `JSONEncoder`, and does one OpenSSL signature with a fresh context per call.
public enum JWS {
    /// Header members `sign` writes itself; callers cannot override them.
    private static let reservedHeaderNames: Set<String> = ["alg", "kid", "typ"]

    /// Signs `payload` with `key`, writing `alg` and `kid` from the key and `typ` when given.
    /// `additionalHeader` adds other members (`alg`, `kid` and `typ` there are ignored).
    public static func sign<Payload: Collection>(
        payload: Payload, key: SigningKey, type: String? = nil, additionalHeader: [String: JSONValue] = [:]
    ) -> String where Payload.Element == UInt8 {
        var header = JSONWriter(capacity: 128)
        var first = true
        header.append("{")
        header.writeMember("alg", .string(key.algorithm.rawValue), first: &first)
        header.writeMember("kid", .string(key.keyID), first: &first)
        if let type { header.writeMember("typ", .string(type), first: &first) }
        for name in additionalHeader.keys.sorted() where !reservedHeaderNames.contains(name) {
            if let value = additionalHeader[name] { header.writeMember(name, value, first: &first) }
        }
        header.append("}")
        var signingInput = Base64URL.encode(header.bytes)
        signingInput.append(".")
        signingInput.append(Base64URL.encode(payload))
        var input = Array(signingInput.utf8)
        let signature = input.withUnsafeBytes { key.key.sign($0) }
        // OpenSSL fails to sign with a valid private key only when it cannot allocate memory;
        // no input reaches this, and a token with a bad signature must never be issued.
        guard let signature else { preconditionFailure("OpenSSL signing failed") }
        input.removeAll()
        signingInput.append(".")
        signingInput.append(Base64URL.encode(signature))
        return signingInput
    }

    /// Signs `claims` as a JWT. `type` is the header `typ`: "JWT" for ID tokens, "at+jwt" for
    /// RFC 9068 access tokens.
    public static func sign(claims: JWTClaims, key: SigningKey, type: String? = "JWT") -> String {
        sign(payload: claims.jsonBytes(), key: key, type: type)
    }
}
