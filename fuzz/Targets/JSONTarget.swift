// Internal parsers need `@testable import`, which only a debug build or the fuzz build
// (`-enable-testing -DPORTICO_FUZZING`, fuzz/run) allows: a release build leaves these out.
#if DEBUG || PORTICO_FUZZING
    import Foundation

    @testable import PorticoCrypto

    /// The JSON parser of token headers and claims, differentially against Foundation's
    /// `JSONSerialization`: both accept the same texts and read the same values.
    ///
    /// Deliberate differences, excluded precisely:
    /// - duplicate member names: Portico rejects them (RFC 7515 §4, RFC 7519 §4), Foundation keeps
    ///   one. The parser's lenient mode (`rejectsDuplicateNames: false`) is compared instead, and
    ///   the strict result must be the lenient one or nil.
    /// - nesting deeper than ``JSONParser/maximumDepth``: Portico rejects it; not compared.
    /// - text Foundation would read as UTF-16 or UTF-32 (a NUL among the first four bytes, a
    ///   byte-order mark): Portico reads only UTF-8; not compared.
    /// - numbers outside `Double`'s range (`1e400`): both reject them today; should Foundation
    ///   accept one, that is not counted as a difference.
    /// - a trailing comma (`[1,]`, `{"a":1,}`): Foundation accepts it, RFC 8259 does not; the
    ///   text without such commas must then parse to Foundation's value.
    /// - long mantissas: Foundation answers an `NSDecimalNumber` whose `doubleValue` is not
    ///   correctly rounded; its decimal text is compared instead.
    enum JSONTarget {
        static func run(_ bytes: [UInt8]) {
            let strict = bytes.withUnsafeBufferPointer { JSONParser.parse($0) }
            let lenient = bytes.withUnsafeBufferPointer { JSONParser.parse($0, rejectsDuplicateNames: false) }
            if let strict {
                FuzzFailure.check(lenient == strict, "the lenient parse differs from the strict one")
                // What Portico writes, it reads back as the same text. (Not always the same case: a
                // double with an integral value is written as an integer, and read back as one.)
                let written = strict.jsonString
                FuzzFailure.check(
                    JSONValue(parsing: Array(written.utf8))?.jsonString == written,
                    "a written value does not round-trip")
            }
            guard isComparable(bytes) else { return }
            let reference = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            if let lenient, let reference {
                FuzzFailure.check(
                    matches(lenient, reference), "values differ from Foundation: \(lenient) vs \(reference)")
            } else if lenient != nil {
                FuzzFailure.check(false, "Portico accepts what Foundation rejects")
            } else if let reference {
                if containsOutOfRangeNumber(reference) || hasOutOfRangeNumberText(bytes) { return }
                // Foundation's one known leniency: a comma before `]` or `}`.
                let stripped = withoutTrailingCommas(bytes)
                let again = stripped.withUnsafeBufferPointer { JSONParser.parse($0, rejectsDuplicateNames: false) }
                FuzzFailure.check(
                    stripped != bytes && again.map { matches($0, reference) } == true,
                    "Foundation accepts what Portico rejects: \(reference)")
            }
        }

        /// `bytes` without each comma (outside strings) that white space separates from a `]` or `}`.
        private static func withoutTrailingCommas(_ bytes: [UInt8]) -> [UInt8] {
            var output: [UInt8] = []
            var inString = false
            var escaped = false
            for (index, byte) in bytes.enumerated() {
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                } else if byte == UInt8(ascii: ",") {
                    let next = bytes[(index + 1)...].first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
                    if next == UInt8(ascii: "]") || next == UInt8(ascii: "}") { continue }
                }
                output.append(byte)
            }
            return output
        }

        /// Whether the comparison applies (see the type's documentation).
        private static func isComparable(_ bytes: [UInt8]) -> Bool {
            if bytes.prefix(4).contains(0) { return false }
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) || bytes.starts(with: [0xFE, 0xFF])
                || bytes.starts(with: [0xFF, 0xFE])
            {
                return false
            }
            return nestingDepth(bytes) <= JSONParser.maximumDepth
        }

        /// The deepest nesting of `[` and `{` outside strings.
        private static func nestingDepth(_ bytes: [UInt8]) -> Int {
            var depth = 0
            var deepest = 0
            var inString = false
            var escaped = false
            for byte in bytes {
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    deepest = max(deepest, depth)
                case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
                default: break
                }
            }
            return deepest
        }

        private static func containsOutOfRangeNumber(_ value: Any) -> Bool {
            switch value {
            case let array as [Any]: return array.contains(where: containsOutOfRangeNumber)
            case let object as [String: Any]: return object.values.contains(where: containsOutOfRangeNumber)
            case let number as NSNumber: return !number.doubleValue.isFinite
            default: return false
            }
        }

        /// Whether some number literal in `bytes` does not fit a finite `Double`.
        private static func hasOutOfRangeNumberText(_ bytes: [UInt8]) -> Bool {
            let text = String(decoding: bytes, as: UTF8.self)
            var number = ""
            for character in text + " " {
                if character.isASCII && (character.isNumber || "+-.eE".contains(character)) {
                    number.append(character)
                    continue
                }
                if !number.isEmpty, let value = Double(number), !value.isFinite { return true }
                number = ""
            }
            return false
        }

        private static func matches(_ ours: JSONValue, _ reference: Any) -> Bool {
            switch ours {
            case .null:
                return reference is NSNull
            case .bool(let value):
                guard let number = reference as? NSNumber, isBoolean(number) else { return false }
                return number.boolValue == value
            case .integer(let value):
                if let decimal = reference as? NSDecimalNumber {
                    return Double(decimal.description) == Double(value)
                }
                guard let number = reference as? NSNumber, !isBoolean(number) else { return false }
                return number.int64Value == value || number.doubleValue == Double(value)
            case .double(let value):
                // Foundation gives long mantissas as NSDecimalNumber, whose `doubleValue` is not
                // correctly rounded; its exact decimal text is, read as a Double.
                if let decimal = reference as? NSDecimalNumber {
                    return Double(decimal.description) == value
                }
                guard let number = reference as? NSNumber, !isBoolean(number) else { return false }
                return number.doubleValue == value
            case .string(let value):
                return (reference as? String) == value
            case .array(let elements):
                guard let array = reference as? [Any], array.count == elements.count else { return false }
                return zip(elements, array).allSatisfy { matches($0, $1) }
            case .object(let members):
                guard let object = reference as? [String: Any], object.count == members.count else { return false }
                return members.allSatisfy { name, value in object[name].map { matches(value, $0) } ?? false }
            }
        }

        private static func isBoolean(_ number: NSNumber) -> Bool {
            String(cString: number.objCType) == "c"
        }
    }
#endif
