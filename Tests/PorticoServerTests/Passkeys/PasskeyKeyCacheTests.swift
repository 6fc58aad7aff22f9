import PorticoCrypto
import PorticoServer
import PorticoTesting
import Testing

/// The node's cache of imported passkey keys: a key is found by its own COSE bytes only, and a
/// full cache starts again empty.
@Suite struct PasskeyKeyCacheTests {
    let rp = PasskeyRelyingParty(rpID: "id.example.com", origin: "https://id.example.com")

    func registered(_ device: SoftwareAuthenticator) throws -> PasskeyRegistration {
        let nonce = SecureRandom.bytes(count: 32)
        let response = device.register(challenge: nonce)
        return try rp.verifyRegistration(
            clientDataJSON: response.clientDataJSON, attestationObject: response.attestationObject, challenge: nonce)
    }

    /// Whether `device`'s fresh assertion verifies against the stored key `publicKey`, through `keys`.
    func verifies(_ device: inout SoftwareAuthenticator, publicKey: [UInt8], keys: PasskeyKeyCache) -> Bool {
        let nonce = SecureRandom.bytes(count: 32)
        let assertion = device.assert(challenge: nonce)
        return
            (try? rp.verifyAssertion(
                clientDataJSON: assertion.clientDataJSON, authenticatorData: assertion.authenticatorData,
                signature: assertion.signature, challenge: nonce, publicKey: publicKey, storedSignCount: 0,
                backupEligible: false, keys: keys)) != nil
    }

    @Test func eachKeyIsFoundByItsOwnBytesOnly() throws {
        let keys = PasskeyKeyCache()
        var ann = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
        var bob = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
        let annKey = try registered(ann).publicKey
        let bobKey = try registered(bob).publicKey
        #expect(verifies(&ann, publicKey: annKey, keys: keys))
        #expect(keys.count == 1)
        // Bob's key is another entry, and each signature is checked against its own key.
        #expect(verifies(&bob, publicKey: bobKey, keys: keys))
        #expect(!verifies(&ann, publicKey: bobKey, keys: keys))
        #expect(!verifies(&bob, publicKey: annKey, keys: keys))
        #expect(verifies(&ann, publicKey: annKey, keys: keys))
        #expect(keys.count == 2)
    }

    @Test func fullCacheStartsAgainEmpty() throws {
        let keys = PasskeyKeyCache(capacity: 2)
        for _ in 0..<3 {
            let device = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
            _ = try keys.key(cbor: try registered(device).publicKey)
        }
        #expect(keys.count == 1)
    }
}
