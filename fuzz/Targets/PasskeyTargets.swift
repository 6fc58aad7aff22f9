import PorticoServer

/// WebAuthn's binary inputs, which any browser (or anyone with curl) sends to the passkey
/// endpoints: CBOR, authenticator data and whole attestation objects and assertions.
enum PasskeyTargets {
    static let relyingParty = PasskeyRelyingParty(rpID: "localhost", origin: "http://localhost:8080")
    static let challenge: [UInt8] = Array(0..<32)

    /// CBOR read by libcbor's streaming decoder: an accepted item re-encodes (libcbor) to bytes
    /// that decode to an item encoding the same again; nothing but a thrown error otherwise.
    static func cbor(_ bytes: [UInt8]) {
        guard let value = try? CBORValue(decoding: bytes) else { return }
        let encoded = value.encoded()
        FuzzFailure.check(!encoded.isEmpty, "an accepted item does not encode")
        let again = try? CBORValue(decoding: encoded)
        FuzzFailure.check(again?.encoded() == encoded, "an accepted item does not round-trip")
    }

    /// Authenticator data (as read at registration and at every assertion), and the same bytes
    /// as an attestation object and as an assertion: refused inputs throw, accepted ones keep
    /// their invariants (a credential id of 1…1023 bytes and a public key that is one CBOR item).
    static func attestation(_ bytes: [UInt8]) {
        if let data = try? AuthenticatorData(bytes: bytes) {
            FuzzFailure.check(data.bytes == bytes && data.rpIDHash.count == 32, "authenticator data lost bytes")
            if let attested = data.attestedCredential {
                FuzzFailure.check(
                    (1...AuthenticatorData.maximumCredentialIDLength).contains(attested.credentialID.count),
                    "a credential id length outside 1…1023 was accepted")
                FuzzFailure.check((try? CBORValue(decoding: attested.publicKey)) != nil, "a public key is not one item")
            }
        }
        let clientData = Array(
            #"{"type":"webauthn.create","challenge":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8","origin":"http://localhost:8080"}"#
                .utf8)
        // An unsigned attestation object can only pass as `none`; a signed one needs the key.
        if let registration = try? relyingParty.verifyRegistration(
            clientDataJSON: clientData, attestationObject: bytes, challenge: challenge)
        {
            FuzzFailure.check(
                registration.attestationFormat == "none" || registration.attestationFormat == "packed",
                "an attestation format other than none and packed was accepted")
        }
        _ = try? relyingParty.verifyAssertion(
            clientDataJSON: clientData, authenticatorData: bytes, signature: Array(bytes.prefix(72)),
            challenge: challenge, publicKey: bytes, storedSignCount: 0, backupEligible: false)
    }
}
