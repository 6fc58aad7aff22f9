/// Verifies JWS compact tokens against a fixed set of keys, trusting nothing the token says
/// about how to verify it.
///
/// The caller states which algorithms are acceptable; the token's `kid` only selects among
/// keys the verifier already has, and the key's own algorithm must equal the header's `alg`.
/// So `alg: none`, HMAC tokens keyed with a public key, and tokens that point an RS256
/// header at an EC key all fail before any cryptography runs. Immutable and `Sendable`.
public struct JWSVerifier: Sendable {
    /// Tokens longer than this are rejected unread; Portico's tokens are well under 2 KiB.
    public static let maximumTokenLength = 16 * 1024

    /// Header names RFC 7515 §4.1.11 forbids in `crit`, since they are not extensions.
    private static let registeredHeaderNames: Set<String> = [
        "alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit",
    ]

    private let keysByID: [String: [VerificationKey]]
    private let understoodCriticalHeaders: Set<String>

    /// A verifier for `keys`. Several keys may share a `kid` if their algorithms differ.
    /// `understoodCriticalHeaders` lists `crit` extensions the caller processes itself; any
    /// other critical extension makes a token invalid (RFC 7515 §4.1.11).
    public init(keys: [VerificationKey], understoodCriticalHeaders: Set<String> = []) {
        self.keysByID = Dictionary(grouping: keys, by: \.keyID)
        self.understoodCriticalHeaders = understoodCriticalHeaders
    }

    /// A verifier for every key of a JWK Set (an RSA key without `alg` for RS256 and PS256,
    /// ``VerificationKey/keys(for:)``); throws if any key cannot be used.
    public init(keySet: JWKSet) throws(KeyError) {
        var keys: [VerificationKey] = []
        for jwk in keySet.keys { keys.append(contentsOf: try VerificationKey.keys(for: jwk)) }
        self.init(keys: keys)
    }

    /// Verifies `token`'s signature and header. `algorithms` are the ones acceptable here;
    /// `type`, when given, is the `typ` the header must carry (compared as RFC 7515 says).
    public func verify(
        _ token: String, algorithms: Set<SignatureAlgorithm>, type: String? = nil
    ) throws(JOSEError) -> VerifiedJWS {
        try Self.verify(
            token, algorithms: algorithms, type: type, understoodCriticalHeaders: understoodCriticalHeaders
        ) { (members, algorithm) throws(JOSEError) -> VerificationKey in
            guard let keyID = try Self.optionalString(members["kid"]) else { throw .missingKeyID }
            guard let candidates = keysByID[keyID] else { throw .unknownKeyID(keyID) }
            guard let key = candidates.first(where: { $0.algorithm == algorithm }) else {
                throw .keyAlgorithmMismatch(token: algorithm, key: candidates[0].algorithm)
            }
            return key
        }
    }

    /// Verifies `token` against the public key its own header carries in `jwk` (RFC 7515
    /// §4.1.3), as a DPoP proof does (RFC 9449 §4.2): what the signature proves is possession
    /// of that key, which the caller then judges by its thumbprint.
    ///
    /// The key must be public (a header with private members is refused, so a careless client
    /// learns its mistake instead of having its key accepted) and of the type `alg` names; the
    /// other header rules are ``verify(_:algorithms:type:)``'s.
    ///
    /// - Parameter keyCache: where the keys of headers seen before are kept, so that a client's
    ///   every proof after its first skips turning the JWK into a key (``EmbeddedKeyCache``).
    public static func verifyWithEmbeddedKey(
        _ token: String, algorithms: Set<SignatureAlgorithm>, type: String? = nil, keyCache: EmbeddedKeyCache? = nil
    ) throws(JOSEError) -> VerifiedJWS {
        try verify(token, algorithms: algorithms, type: type, understoodCriticalHeaders: []) {
            (members, algorithm) throws(JOSEError) -> VerificationKey in
            func make() throws(JOSEError) -> VerificationKey {
                guard let object = members["jwk"], object.objectValue != nil else { throw .missingEmbeddedKey }
                guard let jwk = try? JWK(json: object.jsonString) else { throw .invalidEmbeddedKey }
                guard jwk.publicKey == jwk else { throw .privateEmbeddedKey }
                let keys: [VerificationKey]
                do { keys = try VerificationKey.keys(for: jwk) } catch { throw .invalidEmbeddedKey }
                // An RSA JWK without `alg` is both an RS256 and a PS256 key; the header says which.
                return keys.first { $0.algorithm == algorithm } ?? keys[0]
            }
            let key: VerificationKey
            // verify() has already found exactly three parts, so the header is the first.
            if let keyCache, let end = token.utf8.firstIndex(of: UInt8(ascii: ".")) {
                key = try keyCache.key(forHeader: token[..<end], orMake: make)
            } else {
                key = try make()
            }
            guard key.algorithm == algorithm else { throw .keyAlgorithmMismatch(token: algorithm, key: key.algorithm) }
            return key
        }
    }

    /// The checks both kinds of verification share; `key` picks the key once `alg` is known.
    private static func verify(
        _ token: String, algorithms: Set<SignatureAlgorithm>, type: String?, understoodCriticalHeaders: Set<String>,
        key chooseKey: ([String: JSONValue], SignatureAlgorithm) throws(JOSEError) -> VerificationKey
    ) throws(JOSEError) -> VerifiedJWS {
        let bytes = token.utf8
        guard bytes.count <= Self.maximumTokenLength else { throw .tokenTooLarge }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .wrongPartCount(parts.count) }

        guard let headerBytes = Base64URL.decode(Substring(parts[0])) else { throw .invalidHeaderEncoding }
        guard let headerValue = JSONValue(parsing: headerBytes), let members = headerValue.objectValue else {
            throw .invalidHeader
        }
        guard let algorithmName = members["alg"]?.stringValue else { throw .invalidHeader }
        guard algorithmName.lowercased() != "none" else { throw .algorithmNone }
        guard let algorithm = SignatureAlgorithm(rawValue: algorithmName) else {
            throw .unsupportedAlgorithm(algorithmName)
        }
        guard algorithms.contains(algorithm) else { throw .algorithmNotAllowed(algorithm) }

        let critical = try checkCritical(members, understood: understoodCriticalHeaders)
        let headerType = try optionalString(members["typ"])
        let contentType = try optionalString(members["cty"])
        if let type {
            guard let headerType, JWSHeader.typesMatch(headerType, type) else {
                throw .wrongType(expected: type, actual: headerType)
            }
        }

        let key = try chooseKey(members, algorithm)

        guard let payload = Base64URL.decode(Substring(parts[1])) else { throw .invalidPayloadEncoding }
        guard let signature = Base64URL.decode(Substring(parts[2])) else { throw .invalidSignatureEncoding }
        guard signature.count == key.key.signatureLength else {
            throw .invalidSignatureLength(expected: key.key.signatureLength, actual: signature.count)
        }
        let signingInput = bytes[bytes.startIndex..<parts[1].endIndex]
        let verified = Array(signingInput).withUnsafeBytes { key.key.verify(signature, of: $0) }
        guard verified else { throw .invalidSignature }

        let header = JWSHeader(
            algorithm: algorithm, keyID: try optionalString(members["kid"]), type: headerType, contentType: contentType,
            critical: critical,
            parameters: members)
        return VerifiedJWS(header: header, payload: payload, key: key)
    }

    /// Verifies `token` as a JWT and validates its claims with `validator`: the one call an
    /// endpoint needs to accept an ID token or access token.
    public func verifyJWT(
        _ token: String, algorithms: Set<SignatureAlgorithm>, type: String? = nil, validator: JWTValidator
    ) throws(JOSEError) -> JWTClaims {
        let claims = try verify(token, algorithms: algorithms, type: type).claims()
        try validator.validate(claims)
        return claims
    }

    private static func optionalString(_ value: JSONValue?) throws(JOSEError) -> String? {
        guard let value else { return nil }
        guard let string = value.stringValue else { throw .invalidHeader }
        return string
    }

    /// Checks `crit` (RFC 7515 §4.1.11): a non-empty array of distinct extension names, each
    /// present in the header and understood by the caller.
    private static func checkCritical(_ members: [String: JSONValue], understood understoodCriticalHeaders: Set<String>)
        throws(JOSEError) -> [String]
    {
        guard let value = members["crit"] else { return [] }
        guard let elements = value.arrayValue, !elements.isEmpty else { throw .invalidHeader }
        var names: [String] = []
        for element in elements {
            guard let name = element.stringValue, !Self.registeredHeaderNames.contains(name), !names.contains(name),
                members[name] != nil
            else { throw .invalidHeader }
            names.append(name)
        }
        let unknown = names.filter { !understoodCriticalHeaders.contains($0) }
        guard unknown.isEmpty else { throw .unsupportedCriticalHeader(unknown) }
        return names
    }
}
