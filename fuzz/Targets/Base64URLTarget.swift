import Foundation
import PorticoCrypto

/// base64url (RFC 4648 §5, unpadded), differentially against Foundation's base64.
///
/// Portico's decoder is strict where Foundation's is not, by design: it refuses padding and
/// non-zero leftover bits (a token has exactly one spelling). So the reference is Foundation
/// on the text translated to the standard alphabet and padded, restricted to canonical
/// encodings: Foundation's bytes re-encoded must give the input back.
enum Base64URLTarget {
    static func run(_ bytes: [UInt8]) {
        // Encoding: decodes back to the bytes, and matches Foundation's encoding translated.
        let encoded = Base64URL.encode(bytes)
        FuzzFailure.check(Base64URL.decode(encoded) == bytes, "encode then decode lost bytes")
        let foundation = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        FuzzFailure.check(encoded == foundation, "encoding differs from Foundation")

        // Decoding arbitrary text.
        guard let text = String(validating: bytes, as: UTF8.self) else {
            FuzzFailure.check(Base64URL.decode(String(decoding: bytes, as: UTF8.self)) == nil, "non-ASCII accepted")
            return
        }
        let ours = Base64URL.decode(text)
        let reference = referenceDecode(text)
        FuzzFailure.check(
            ours == reference,
            "decoding differs from Foundation: \(String(describing: ours)) vs \(String(describing: reference))")
    }

    /// Foundation's reading of unpadded base64url text, accepting only the canonical spelling.
    private static func referenceDecode(_ text: String) -> [UInt8]? {
        guard !text.contains("="), !text.contains("+"), !text.contains("/") else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if standard.utf8.count % 4 == 1 { return nil }
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: standard) else { return nil }
        let canonical = data.base64EncodedString()
        return canonical == standard ? Array(data) : nil
    }
}
