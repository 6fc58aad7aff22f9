import Foundation
import PorticoCrypto
import Testing

@Test func base64URLRoundTripsEveryLength() {
    for length in 0..<40 {
        let bytes = (0..<length).map { UInt8(($0 * 37 + 11) & 0xFF) }
        let encoded = Base64URL.encode(bytes)
        #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
        #expect(Base64URL.decode(encoded) == bytes)
    }
    #expect(Base64URL.decode("a") == nil)
    #expect(Base64URL.decode("ab=") == nil)
    #expect(Base64URL.decode("AB") == nil)  // non-zero trailing bits
}

@Test func sha256KnownAnswer() {
    #expect(Base64URL.encode(Digest.sha256.hash("abc")) == "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0")
}

@Test func sha384AndSHA512KnownAnswers() {
    // FIPS 180-2 "abc" examples.
    #expect(
        Digest.sha384.hash("abc").hex
            == "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")
    #expect(
        Digest.sha512.hash("abc").hex
            == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd"
            + "454d4423643ce80e2a9ac94fa54ca49f")
    #expect(Digest.sha256.hash("").hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
}

@Test func hmacSHA256MatchesRFC4231() {
    // RFC 4231 test case 2.
    let code = HMAC.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
    #expect(code.hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
}

@Test func secureRandomTokensAre256BitURLSafeAndDistinct() {
    let tokens = (0..<200).map { _ in SecureRandom.token() }
    #expect(Set(tokens).count == tokens.count)
    for token in tokens {
        #expect(token.utf8.count == 43)
        #expect(Base64URL.decode(token)?.count == 32)
    }
    #expect(SecureRandom.bytes(count: 0).isEmpty)
    #expect(SecureRandom.bytes(count: 17).count == 17)
}

@Test func constantTimeEquality() {
    #expect(ConstantTime.equals("secret", "secret"))
    #expect(!ConstantTime.equals("secret", "secreT"))
    #expect(!ConstantTime.equals("secret", "secret1"))
    #expect(ConstantTime.equals("", ""))
    #expect(ConstantTime.equals([UInt8](), [UInt8]()))
}

@Test func pkceVerifierRules() {
    #expect(PKCE.isValidVerifier(String(repeating: "a", count: 43)))
    #expect(PKCE.isValidVerifier(String(repeating: "~", count: 128)))
    #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42)))
    #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 129)))
    #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42) + "+"))
    #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42) + "é"))
    let verifier = PKCE.makeVerifier()
    #expect(PKCE.isValidVerifier(verifier))
    #expect(PKCE.verify(verifier, matches: PKCE.challenge(for: verifier)))
    #expect(!PKCE.verify(verifier, matches: PKCE.challenge(for: PKCE.makeVerifier())))
}

@Test func jsonParserIsStrict() {
    let accepted: [(String, JSONValue)] = [
        (#"{"a":[1,-2.5,true,null,"\u00e9\ud83d\ude00\n"]}"#, ["a": [1, -2.5, true, .null, "é😀\n"]]),
        (" 0 ", 0), ("9223372036854775808", .double(9_223_372_036_854_775_808)), ("1e3", 1000.0),
    ]
    for (text, value) in accepted {
        #expect(JSONValue(parsing: Array(text.utf8)) == value, "\(text)")
    }
    let rejected = [
        "", "01", "1.", ".5", "+1", "[1,]", #"{"a":1,}"#, #"{"a":1,"a":2}"#, #""\ud800""#, #""\x""#, "tru", "[1] 2",
        "\"a\u{1}\"", "NaN", "1e999", String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
    ]
    for text in rejected {
        #expect(JSONValue(parsing: Array(text.utf8)).map { _ in true } == nil, "\(text)")
    }
    #expect(JSONValue(parsing: [0x22, 0xFF, 0x22]).map { _ in true } == nil)  // invalid UTF-8
    let value: JSONValue = ["b": "q\"\\\u{1}", "a": [1, 2.5, false]]
    #expect(value.jsonString == #"{"a":[1,2.5,false],"b":"q\"\\\u0001"}"#)
    #expect(JSONValue(parsing: Array(value.jsonString.utf8)) == value)
}

extension [UInt8] {
    fileprivate var hex: String { map { String(format: "%02x", $0) }.joined() }
}

@Test func jsonWriterCopiesPlainStringsAndEscapesTheRest() {
    // Plain strings (tokens, non-ASCII text) go out as they are; a quote, a backslash or a
    // control character anywhere, even after a long plain run, is escaped.
    let token = String(repeating: "eyJhbGciOiJSUzI1NiJ9-_", count: 100)
    let cases: [(String, String)] = [
        (token, "\"\(token)\""), ("é😀 plain", "\"é😀 plain\""), ("", #""""#),
        (token + "\"", "\"\(token)\\\"\""), (token + "\\", "\"\(token)\\\\\""),
        (token + "\n\t\r", "\"\(token)\\n\\t\\r\""), ("\u{1F}" + token, "\"\\u001f\(token)\""),
        ("a\u{7F}b", "\"a\u{7F}b\""),
    ]
    for (text, expected) in cases {
        #expect(JSONValue.string(text).jsonString == expected)
        #expect(JSONValue(parsing: Array(JSONValue.string(text).jsonString.utf8)) == .string(text))
    }
}
