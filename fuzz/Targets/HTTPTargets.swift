// Internal parsers need `@testable import`, which only a debug build or the fuzz build
// (`-enable-testing -DPORTICO_FUZZING`, fuzz/run) allows: a release build leaves these out.
#if DEBUG || PORTICO_FUZZING
    import Foundation

    @testable import PorticoHTTP

    /// Targets for PorticoHTTP's parsers of request input.
    enum HTTPTargets {
        /// Query strings and form bodies: decoding either fails with a 400 or yields pairs whose
        /// re-encoding decodes to the same pairs.
        static func form(_ bytes: [UInt8]) {
            guard let form = try? FormParameters(decoding: bytes) else { return }
            let encoded = form.map { percentEncoded($0.name) + "=" + percentEncoded($0.value) }.joined(separator: "&")
            let again = try? FormParameters(decoding: Array(encoded.utf8))
            FuzzFailure.check(again == form, "form pairs do not survive re-encoding: \(Array(form))")
            for pair in form {
                FuzzFailure.check(form[pair.name] != nil, "lookup of a decoded name failed")
            }
        }

        /// Percent-decoding, differentially against Foundation's `removingPercentEncoding` (which
        /// has no `+` rule): both accept the same UTF-8 text and give the same result, except where
        /// Foundation replaces invalid UTF-8 (see below).
        static func percent(_ bytes: [UInt8]) {
            let ours = try? PercentDecoding.decode(bytes[...], plusAsSpace: false)
            let withPlus = try? PercentDecoding.decode(bytes[...], plusAsSpace: true)
            FuzzFailure.check((ours == nil) == (withPlus == nil), "the + rule changed acceptance")
            // With the + rule, the result is that of the text with every + written as %20.
            let spaced = bytes.flatMap { $0 == UInt8(ascii: "+") ? Array("%20".utf8) : [$0] }
            FuzzFailure.check(
                withPlus == (try? PercentDecoding.decode(spaced[...], plusAsSpace: false)),
                "the + rule did more than map + to space")
            // Foundation needs text; only valid UTF-8 input can be compared. (Raw bytes that are
            // UTF-8 only together with escapes, `\xCB%A9`, decode to valid text and are accepted.)
            guard let text = String(validating: bytes, as: UTF8.self) else { return }
            let reference = text.removingPercentEncoding
            // Foundation on Linux replaces escapes that decode to invalid UTF-8 with U+FFFD instead
            // of failing; Portico refuses them (400). Not compared.
            if ours == nil, let reference, reference.unicodeScalars.contains("\u{FFFD}"),
                !text.unicodeScalars.contains("\u{FFFD}")
            {
                return
            }
            FuzzFailure.check(
                ours == reference,
                "percent-decoding differs from Foundation: \(String(describing: ours)) vs \(String(describing: reference))"
            )
        }

        /// The `Cookie` header: every pair found has a name without `;` or `=` and surrounding space.
        static func cookie(_ bytes: [UInt8]) {
            var headers = HTTPHeaders()
            for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(4) {
                headers.add("Cookie", value: String(decoding: line, as: UTF8.self))
            }
            let request = Request(method: .get, path: "/", headers: headers)
            for (name, value) in request.cookies {
                // Bytes, not Characters: U+0600 joins a following `=` into one grapheme.
                let bytes = Array(name.utf8)
                FuzzFailure.check(
                    !bytes.isEmpty && !bytes.contains(UInt8(ascii: ";")) && !bytes.contains(UInt8(ascii: "=")),
                    "bad cookie name \(name)")
                FuzzFailure.check(!value.utf8.contains(UInt8(ascii: ";")), "cookie value with ;")
                FuzzFailure.check(
                    bytes.first != 0x20 && bytes.last != 0x20 && bytes.first != 0x09 && bytes.last != 0x09,
                    "cookie name not trimmed")
            }
        }

        /// `Authorization: Basic`: a parsed pair encodes back to a header that parses to the same pair.
        static func basic(_ bytes: [UInt8]) {
            let header = String(decoding: bytes, as: UTF8.self)
            guard let credentials = BasicCredentials(authorization: header) else { return }
            FuzzFailure.check(!credentials.user.contains(":"), "user id contains a colon")
            let encoded = Data((credentials.user + ":" + credentials.password).utf8).base64EncodedString()
            FuzzFailure.check(
                BasicCredentials(authorization: "Basic " + encoded) == credentials, "Basic pair does not round-trip")
            _ = try? credentials.formURLDecoded()
        }

        private static func percentEncoded(_ text: String) -> String {
            var result = ""
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                    result.unicodeScalars.append(Unicode.Scalar(byte))
                default:
                    let hex = Array("0123456789ABCDEF".unicodeScalars)
                    result.unicodeScalars.append("%")
                    result.unicodeScalars.append(hex[Int(byte >> 4)])
                    result.unicodeScalars.append(hex[Int(byte & 0x0F)])
                }
            }
            return result
        }
    }
#endif
