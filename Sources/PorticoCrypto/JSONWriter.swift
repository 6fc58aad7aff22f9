/// Writes compact JSON into a byte buffer.
///
/// Used on the signing path instead of `JSONEncoder`, which costs several microseconds per
/// token for what is a handful of string appends.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func write(_ value: JSONValue) {
        switch value {
        case .null: append("null")
        case .bool(let flag): flag ? append("true") : append("false")
        case .integer(let number): write(number)
        case .double(let number): write(number)
        case .string(let text): write(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for key in members.keys.sorted() {
                if let member = members[key] { writeMember(key, member, first: &first) }
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Writes `"name":value`, preceded by a comma unless it is the first member.
    mutating func writeMember(_ name: String, _ value: JSONValue, first: inout Bool) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        write(name)
        bytes.append(UInt8(ascii: ":"))
        write(value)
    }

    mutating func write(_ number: Int64) {
        bytes.append(contentsOf: String(number).utf8)
    }

    mutating func write(_ number: Double) {
        guard number.isFinite else {
            append("null")  // JSON has no NaN or infinity
            return
        }
        if number.rounded(.towardZero) == number, let exact = Int64(exactly: number) {
            write(exact)
        } else {
            bytes.append(contentsOf: number.description.utf8)
        }
    }

    mutating func write(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        // Tokens, ids and most claims need no escape: copy them whole (a token response is
        // kilobytes of base64url, which the loop below appended a byte at a time).
        let copied: Bool? = string.utf8.withContiguousStorageIfAvailable { text in
            guard !text.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
            else { return false }
            bytes.append(contentsOf: text)
            return true
        }
        if copied == true {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x00..<0x20:
                append("\\u00")
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
