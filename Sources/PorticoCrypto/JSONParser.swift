/// A strict, allocation-light JSON parser for token headers and claims.
///
/// Foundation's decoders accept duplicate keys silently and differ between platforms; JOSE
/// needs duplicates rejected and every input, however hostile, answered without a crash.
struct JSONParser {
    /// How deep arrays and objects may nest; keeps recursion bounded on hostile input.
    static let maximumDepth = 64

    private let input: UnsafeBufferPointer<UInt8>
    private let rejectsDuplicateNames: Bool
    private var position = 0

    private init(_ input: UnsafeBufferPointer<UInt8>, rejectsDuplicateNames: Bool) {
        self.input = input
        self.rejectsDuplicateNames = rejectsDuplicateNames
    }

    /// The value of the whole of `input`, or nil if it is not exactly one JSON text.
    /// `rejectsDuplicateNames: false` (the last duplicate wins) exists only so the fuzzer can
    /// compare this parser with Foundation's, which accepts duplicates.
    static func parse(_ input: UnsafeBufferPointer<UInt8>, rejectsDuplicateNames: Bool = true) -> JSONValue? {
        var parser = JSONParser(input, rejectsDuplicateNames: rejectsDuplicateNames)
        parser.skipWhitespace()
        guard let value = parser.parseValue(depth: 0) else { return nil }
        parser.skipWhitespace()
        return parser.position == input.count ? value : nil
    }

    private var current: UInt8? {
        position < input.count ? input[position] : nil
    }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            position += 1
        }
    }

    private mutating func consume(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard input.count - position >= count else { return false }
        let start = literal.utf8Start
        for offset in 0..<count where input[position + offset] != start[offset] {
            return false
        }
        position += count
        return true
    }

    private mutating func parseValue(depth: Int) -> JSONValue? {
        guard depth <= Self.maximumDepth, let byte = current else { return nil }
        switch byte {
        case UInt8(ascii: "{"): return parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return parseString().map(JSONValue.string)
        case UInt8(ascii: "t"): return consume("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return consume("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return consume("null") ? .null : nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return parseNumber()
        default: return nil
        }
    }

    private mutating func parseObject(depth: Int) -> JSONValue? {
        position += 1  // {
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\""), let name = parseString() else { return nil }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return nil }
            position += 1
            skipWhitespace()
            guard let value = parseValue(depth: depth) else { return nil }
            guard members.updateValue(value, forKey: name) == nil || !rejectsDuplicateNames else { return nil }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(members)
            default:
                return nil
            }
        }
    }

    private mutating func parseArray(depth: Int) -> JSONValue? {
        position += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            guard let value = parseValue(depth: depth) else { return nil }
            elements.append(value)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(elements)
            default:
                return nil
            }
        }
    }

    private mutating func parseHexQuad() -> UInt16? {
        guard input.count - position >= 4 else { return nil }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = input[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    private mutating func parseString() -> String? {
        position += 1  // opening quote
        let start = position
        // Fast path: no escapes.
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { return nil }
            position += 1
        }
        guard let stop = current else { return nil }
        var bytes = Array(UnsafeBufferPointer(rebasing: input[start..<position]))
        if stop == UInt8(ascii: "\"") {
            position += 1
            return String(validating: bytes, as: UTF8.self)
        }
        while let byte = current {
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: bytes, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escape = current else { return nil }
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escape)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = parseEscapedScalar() else { return nil }
                    bytes.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                bytes.append(byte)
            }
        }
        return nil
    }

    /// The scalar of a `\u` escape (the `\u` already consumed), joining surrogate pairs and
    /// refusing lone surrogates, which no valid string contains.
    private mutating func parseEscapedScalar() -> Unicode.Scalar? {
        guard let first = parseHexQuad() else { return nil }
        switch first {
        case 0xD800...0xDBFF:
            guard consume("\\u"), let second = parseHexQuad(), (0xDC00...0xDFFF).contains(second) else { return nil }
            let value = 0x10000 + (UInt32(first - 0xD800) << 10) + UInt32(second - 0xDC00)
            return Unicode.Scalar(value)
        case 0xDC00...0xDFFF:
            return nil
        default:
            return Unicode.Scalar(first)
        }
    }

    private mutating func skipDigits() -> Int {
        var count = 0
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            position += 1
            count += 1
        }
        return count
    }

    private mutating func parseNumber() -> JSONValue? {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = skipDigits()
        guard integerDigits > 0 else { return nil }
        if integerDigits > 1 && input[integerStart] == UInt8(ascii: "0") { return nil }  // leading zero
        var isInteger = true
        if current == UInt8(ascii: ".") {
            position += 1
            guard skipDigits() > 0 else { return nil }
            isInteger = false
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard skipDigits() > 0 else { return nil }
            isInteger = false
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: input[start..<position]), as: UTF8.self)
        if isInteger, let value = Int64(text) { return .integer(value) }
        guard let value = Double(text), value.isFinite else { return nil }
        return .double(value)
    }
}
