import Foundation

/// The claims of a JWT (RFC 7519 §4): the registered ones as typed properties, everything
/// else (`nonce`, `at_hash`, `auth_time`, `scope`, `client_id`, `email`, ...) as JSON values.
///
/// Times are `Date`s and are written as whole seconds since 1970 (NumericDate); `aud` is
/// written as a string when it has one value and as an array otherwise, as most relying
/// parties expect.
public struct JWTClaims: Sendable, Hashable {
    /// The claim names held in typed properties; `additionalClaims` never writes these.
    public static let registeredNames: Set<String> = ["iss", "sub", "aud", "exp", "nbf", "iat", "jti"]

    /// `iss`: who issued the token (Portico's issuer URL).
    public var issuer: String?
    /// `sub`: whom the token is about (the user id, or the client for client credentials).
    public var subject: String?
    /// `aud`: who the token is for; empty when absent.
    public var audience: [String]
    /// `exp`: when the token stops being valid.
    public var expiresAt: Date?
    /// `nbf`: when the token starts being valid.
    public var notBefore: Date?
    /// `iat`: when the token was issued.
    public var issuedAt: Date?
    /// `jti`: the token's unique id, used for revocation and replay detection.
    public var jwtID: String?
    /// Every other claim by name. Names in `registeredNames` are ignored when writing.
    public var additionalClaims: [String: JSONValue]

    /// Claims with these values; all are optional so each token type sets what it needs.
    public init(
        issuer: String? = nil, subject: String? = nil, audience: [String] = [], expiresAt: Date? = nil,
        notBefore: Date? = nil, issuedAt: Date? = nil, jwtID: String? = nil, additionalClaims: [String: JSONValue] = [:]
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.expiresAt = expiresAt
        self.notBefore = notBefore
        self.issuedAt = issuedAt
        self.jwtID = jwtID
        self.additionalClaims = additionalClaims
    }

    /// An additional claim by name, for example `claims["nonce"] = .string(nonce)`.
    public subscript(name: String) -> JSONValue? {
        get { additionalClaims[name] }
        set { additionalClaims[name] = newValue }
    }

    /// Reads claims from a JWT payload: a JSON object whose registered claims have their
    /// RFC 7519 types; anything else throws.
    public init<Bytes: Collection>(json bytes: Bytes) throws(JOSEError) where Bytes.Element == UInt8 {
        guard let value = JSONValue(parsing: bytes), var members = value.objectValue else { throw .invalidClaims }
        func string(_ name: String) throws(JOSEError) -> String? {
            guard let value = members.removeValue(forKey: name) else { return nil }
            guard let string = value.stringValue else { throw .invalidClaim(name) }
            return string
        }
        func date(_ name: String) throws(JOSEError) -> Date? {
            guard let value = members.removeValue(forKey: name) else { return nil }
            guard let seconds = value.doubleValue else { throw .invalidClaim(name) }
            return Date(timeIntervalSince1970: seconds)
        }
        issuer = try string("iss")
        subject = try string("sub")
        jwtID = try string("jti")
        expiresAt = try date("exp")
        notBefore = try date("nbf")
        issuedAt = try date("iat")
        switch members.removeValue(forKey: "aud") {
        case nil:
            audience = []
        case .string(let single):
            audience = [single]
        case .array(let elements):
            audience = []
            for element in elements {
                guard let name = element.stringValue else { throw .invalidClaim("aud") }
                audience.append(name)
            }
        default:
            throw .invalidClaim("aud")
        }
        additionalClaims = members
    }

    /// The payload's JSON bytes: registered claims first, then the others sorted by name.
    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 384)
        var first = true
        writer.append("{")
        if let issuer { writer.writeMember("iss", .string(issuer), first: &first) }
        if let subject { writer.writeMember("sub", .string(subject), first: &first) }
        if audience.count == 1 {
            writer.writeMember("aud", .string(audience[0]), first: &first)
        } else if !audience.isEmpty {
            writer.writeMember("aud", .array(audience.map(JSONValue.string)), first: &first)
        }
        if let expiresAt { writer.writeMember("exp", Self.numericDate(expiresAt), first: &first) }
        if let notBefore { writer.writeMember("nbf", Self.numericDate(notBefore), first: &first) }
        if let issuedAt { writer.writeMember("iat", Self.numericDate(issuedAt), first: &first) }
        if let jwtID { writer.writeMember("jti", .string(jwtID), first: &first) }
        for name in additionalClaims.keys.sorted() where !Self.registeredNames.contains(name) {
            if let value = additionalClaims[name] { writer.writeMember(name, value, first: &first) }
        }
        writer.append("}")
        return writer.bytes
    }

    /// The payload's JSON text.
    public var jsonString: String {
        String(decoding: jsonBytes(), as: UTF8.self)
    }

    private static func numericDate(_ date: Date) -> JSONValue {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        return Int64(exactly: seconds).map(JSONValue.integer) ?? .double(seconds)
    }
}
