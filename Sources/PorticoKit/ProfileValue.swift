import Foundation

/// A JSON value in a profile, an ID token's claims or a provider's document.
///
/// PorticoKit has its own JSON type rather than PorticoCrypto's because PorticoCrypto (OpenSSL)
/// exists on Linux only; this one is plain Foundation, so the SDK's public API is the same on
/// every platform. It encodes as the JSON value itself, so stored grants read back unchanged.
public enum ProfileValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without fraction or exponent that fits 64 bits.
    case integer(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([ProfileValue])
    /// An object.
    case object([String: ProfileValue])

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as an integer, when it is one (a double only when it has no fraction).
    public var integerValue: Int64? {
        switch self {
        case .integer(let value): return value
        case .double(let value):
            guard value.rounded() == value, let exact = Int64(exactly: value) else { return nil }
            return exact
        default: return nil
        }
    }

    /// The number as a double, when this is a number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The flag, when this is a Boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [ProfileValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: [String: ProfileValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Parses one JSON text; nil for anything that is not JSON, never a crash.
    public init?<Bytes: Collection>(parsing bytes: Bytes) where Bytes.Element == UInt8 {
        guard let value = try? JSONDecoder().decode(ProfileValue.self, from: Data(bytes)) else { return nil }
        self = value
    }

    /// The compact JSON text of this value, members in sorted order so output is deterministic.
    public var jsonString: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension ProfileValue: ExpressibleByStringLiteral {
    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension ProfileValue: ExpressibleByIntegerLiteral {
    /// An integer value.
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension ProfileValue: ExpressibleByFloatLiteral {
    /// A double value.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension ProfileValue: ExpressibleByBooleanLiteral {
    /// A Boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension ProfileValue: ExpressibleByArrayLiteral {
    /// An array value.
    public init(arrayLiteral elements: ProfileValue...) { self = .array(elements) }
}

extension ProfileValue: ExpressibleByDictionaryLiteral {
    /// An object value; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, ProfileValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension ProfileValue: Codable {
    /// Decodes any JSON value, so a profile value can sit inside other Codable types.
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
        } else if let value = try? container.decode([ProfileValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ProfileValue].self))
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
