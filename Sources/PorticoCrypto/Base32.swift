/// Base32 (RFC 4648 §6), the alphabet `A`–`Z`, `2`–`7`: how one-time-password secrets are
/// written in `otpauth://` URIs and typed into authenticator apps by hand.
///
/// Encoding leaves out the `=` padding (the Key URI format asks for none); decoding accepts
/// lower case, spaces and padding, as people copy the secret in groups.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// `bytes` in base32 without padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(alphabet[Int((buffer >> UInt32(bits)) & 0x1F)])
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1F)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes `text` encodes, or nil when it holds a character outside the alphabet (spaces,
    /// hyphens and trailing `=` aside) or leftover bits that are not zero.
    public static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.utf8 {
            let value: UInt8
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = character - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = character - UInt8(ascii: "a")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = character - UInt8(ascii: "2") + 26
            case UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "="): continue
            default: return nil
            }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                output.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        guard buffer == 0 else { return nil }
        return output
    }
}
