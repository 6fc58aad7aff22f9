import PorticoCrypto
import Testing

/// AES-256-GCM sealing of private keys at rest: what one key seals only that key opens, only
/// for the same context, and any change to the sealed text is detected.
@Suite struct KeyEncryptionTests {
    let pem = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n"

    @Test func sealedTextOpensWithTheSameKeyAndContextOnly() throws {
        let key = KeyEncryptionKey.generate()
        let sealed = try key.seal(pem, context: "kid-1")
        #expect(KeyEncryptionKey.isSealed(sealed))
        #expect(!sealed.contains("PRIVATE KEY"))
        #expect(try key.open(sealed, context: "kid-1") == pem)
        #expect(throws: KeyEncryptionError.authenticationFailed) { try key.open(sealed, context: "kid-2") }
        let other = KeyEncryptionKey.generate()
        #expect(throws: KeyEncryptionError.authenticationFailed) { try other.open(sealed, context: "kid-1") }
    }

    @Test func everySealUsesAFreshNonce() throws {
        let key = KeyEncryptionKey.generate()
        #expect(try key.seal(pem, context: "k") != key.seal(pem, context: "k"))
    }

    @Test func anAlteredSealedValueIsRefused() throws {
        let key = KeyEncryptionKey.generate()
        let sealed = try key.seal(pem, context: "k")
        let body = Array(sealed.dropFirst(KeyEncryptionKey.sealedPrefix.count))
        for index in [0, 15, body.count / 2, body.count - 1] {
            var changed = body
            changed[index] = changed[index] == "A" ? "B" : "A"
            let tampered = KeyEncryptionKey.sealedPrefix + String(changed)
            #expect(throws: KeyEncryptionError.self) { try key.open(tampered, context: "k") }
        }
        #expect(throws: KeyEncryptionError.malformed) { try key.open(pem, context: "k") }
        #expect(throws: KeyEncryptionError.malformed) { try key.open("aes256gcm:AAAA", context: "k") }
    }

    @Test func theKeyFileFormRoundTripsAndRejectsOtherLengths() throws {
        let key = KeyEncryptionKey.generate()
        let again = try #require(KeyEncryptionKey(encoded: key.encoded + "\n"))
        let sealed = try key.seal(pem, context: "k")
        #expect(try again.open(sealed, context: "k") == pem)
        #expect(KeyEncryptionKey(encoded: "c2hvcnQ") == nil)
        #expect(KeyEncryptionKey(encoded: "not base64url!") == nil)
        #expect(KeyEncryptionKey(bytes: [UInt8](repeating: 1, count: 16)) == nil)
    }

    /// A known answer: NIST's GCM test case 14-like vector (all-zero 256-bit key and nonce,
    /// 16 zero bytes) computed by OpenSSL's command line, so the format is AES-256-GCM and not
    /// something that merely round-trips.
    @Test func matchesAnIndependentAES256GCMComputation() throws {
        let key = try #require(KeyEncryptionKey(bytes: [UInt8](repeating: 0, count: 32)))
        // nonce 000000000000000000000000, plaintext 16 x 0x00, no AAD:
        // ciphertext cea7403d4d606b6e074ec5d3baf39d18, tag d0d1c8a799996bf0265b98b5d48ab919
        let raw: [UInt8] =
            [UInt8](repeating: 0, count: 12) + hex("cea7403d4d606b6e074ec5d3baf39d18")
            + hex("d0d1c8a799996bf0265b98b5d48ab919")
        let sealed = KeyEncryptionKey.sealedPrefix + Base64URL.encode(raw)
        let opened = try key.open(sealed, context: "")
        #expect(Array(opened.utf8) == [UInt8](repeating: 0, count: 16))
    }

    private func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}
