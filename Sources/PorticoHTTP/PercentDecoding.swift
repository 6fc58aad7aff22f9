/// Strict percent-decoding shared by paths, query strings and form bodies.
///
/// Strict means a `%` not followed by two hex digits, or bytes that are not UTF-8 after
/// decoding, are errors (answered 400) rather than being passed on half-decoded.
enum PercentDecoding {
    /// Decodes `bytes`; with `plusAsSpace`, `+` means a space as in
    /// `application/x-www-form-urlencoded` (but not in paths).
    static func decode(_ bytes: ArraySlice<UInt8>, plusAsSpace: Bool) throws(HTTPError) -> String {
        var needsWork = false
        for byte in bytes where byte == UInt8(ascii: "%") || (plusAsSpace && byte == UInt8(ascii: "+")) {
            needsWork = true
            break
        }
        if !needsWork {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw HTTPError.badRequest("Invalid UTF-8 in URL-encoded text")
            }
            return text
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                guard first != bytes.endIndex else { throw invalidEscape }
                let second = bytes.index(after: first)
                guard second != bytes.endIndex, let high = hexValue(bytes[first]), let low = hexValue(bytes[second])
                else { throw invalidEscape }
                output.append(high << 4 | low)
                index = bytes.index(after: second)
                continue
            }
            output.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index = bytes.index(after: index)
        }
        guard let text = String(validating: output, as: UTF8.self) else {
            throw HTTPError.badRequest("Invalid UTF-8 in URL-encoded text")
        }
        return text
    }

    private static var invalidEscape: HTTPError { HTTPError.badRequest("Invalid percent-encoding") }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
