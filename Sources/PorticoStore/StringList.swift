import Foundation

/// Lists of strings in one text column, as every backend stores them: a JSON array, written and
/// read without Foundation's JSON coders, which cost more than the rest of a token request's database work.
public enum StringList {
    /// The JSON array of `strings`.
    public static func encode(_ strings: [String]) -> String {
        var output = "["
        for (index, string) in strings.enumerated() {
            if index > 0 { output.append(",") }
            output.append("\"")
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": output.append("\\\"")
                case "\\": output.append("\\\\")
                case "\n": output.append("\\n")
                case "\r": output.append("\\r")
                case "\t": output.append("\\t")
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        output.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                    } else {
                        output.unicodeScalars.append(scalar)
                    }
                }
            }
            output.append("\"")
        }
        output.append("]")
        return output
    }

    /// The strings of a JSON array written by ``encode(_:)``; nil when the text is not one.
    public static func decode(_ text: String) -> [String]? {
        var scalars = text.unicodeScalars.makeIterator()
        guard scalars.next() == "[" else { return nil }
        var result: [String] = []
        var expectingValue = true
        while let scalar = scalars.next() {
            switch scalar {
            case "]":
                return scalars.next() == nil && (expectingValue == result.isEmpty) ? result : nil
            case ",":
                if expectingValue { return nil }
                expectingValue = true
            case "\"":
                guard expectingValue, let string = readString(&scalars) else { return nil }
                result.append(string)
                expectingValue = false
            default:
                return nil
            }
        }
        return nil
    }

    private static func readString(_ scalars: inout String.UnicodeScalarView.Iterator) -> String? {
        var output = String.UnicodeScalarView()
        while let scalar = scalars.next() {
            switch scalar {
            case "\"":
                return String(output)
            case "\\":
                guard let escaped = scalars.next() else { return nil }
                switch escaped {
                case "\"", "\\", "/": output.append(escaped)
                case "n": output.append("\n")
                case "r": output.append("\r")
                case "t": output.append("\t")
                case "b": output.append("\u{8}")
                case "f": output.append("\u{C}")
                case "u":
                    var value: UInt32 = 0
                    for _ in 0..<4 {
                        guard let digit = scalars.next(), let nibble = hexValue(digit) else { return nil }
                        value = value << 4 | nibble
                    }
                    guard let decoded = Unicode.Scalar(value) else { return nil }
                    output.append(decoded)
                default:
                    return nil
                }
            default:
                output.append(scalar)
            }
        }
        return nil
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar {
        case "0"..."9": scalar.value - 0x30
        case "a"..."f": scalar.value - 0x61 + 10
        case "A"..."F": scalar.value - 0x41 + 10
        default: nil
        }
    }
}
