/// A JSON value, used for JWT claims and JWS header parameters that have no typed property.
///
/// Tokens carry claims Portico cannot know in advance (`nonce`, `scope`, `email`, a resource
/// server's own claims), so they are kept as values rather than forced through a fixed Codable
/// type. Integers are kept apart from other numbers so that `auth_time` and friends round-trip
/// exactly.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case integer(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; member order is not significant in JSON and is not kept.
    case object([String: JSONValue])

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, when this is an integer (or a double with no fractional part that fits).
    public var integerValue: Int64? {
        switch self {
        case .integer(let value): return value
        case .double(let value):
            guard value.rounded(.towardZero) == value, let exact = Int64(exactly: value) else { return nil }
            return exact
        default: return nil
        }
    }

    /// The number as a `Double`, when this is a number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The Boolean, when this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Parses one JSON text strictly (RFC 8259): no trailing data, no duplicate member names
    /// (RFC 7515 §4 and RFC 7519 §4 forbid them), valid UTF-8, nesting at most 64 deep.
    /// Returns nil for anything else, never crashing on hostile input.
    public init?<Bytes: Collection>(parsing bytes: Bytes) where Bytes.Element == UInt8 {
        let array = Array(bytes)
        guard let value = array.withUnsafeBufferPointer({ JSONParser.parse($0) }) else { return nil }
        self = value
    }

    /// The compact JSON text of this value; object members are written in sorted order so the
    /// output is deterministic.
    public var jsonString: String {
        var writer = JSONWriter()
        writer.write(self)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A string value, so claims read naturally: `claims["scope"] = "openid profile"`.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// An integer value.
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// A double value.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// A Boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An array value.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// An object value; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue: Codable {
    /// Decodes any JSON value, so `JSONValue` can sit inside other Codable types.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as itself.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
