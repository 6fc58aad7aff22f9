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
