import PorticoCrypto
import PorticoServer
import PorticoTesting
import Testing

/// WebAuthn Level 3 §7.1 and §7.2, check by check, with keys OpenSSL makes on the spot and CBOR
/// libcbor writes: each refusal test breaks exactly one thing a good response has.
@Suite struct PasskeyVerificationTests {
    static let rp = PasskeyRelyingParty(rpID: "id.example.com", origin: "https://id.example.com")
    let rp = Self.rp

    func authenticator(_ algorithm: SignatureAlgorithm = .es256, synced: Bool = false) throws -> SoftwareAuthenticator {
        try SoftwareAuthenticator(
            algorithm: algorithm, rpID: rp.rpID, origin: rp.origin, signCount: 1, synced: synced)
    }

    func challenge() -> [UInt8] { SecureRandom.bytes(count: 32) }

    // MARK: Registration

    @Test(arguments: [SignatureAlgorithm.es256, .edDSA, .rs256], ["none", "packed"])
    func registrationOfEachAlgorithmAndFormatIsAccepted(_ algorithm: SignatureAlgorithm, format: String) throws {
        let device = try authenticator(algorithm)
        let nonce = challenge()
        let response = device.register(challenge: nonce, format: format)
        let registered = try rp.verifyRegistration(
            clientDataJSON: response.clientDataJSON, attestationObject: response.attestationObject, challenge: nonce)
        #expect(registered.credentialID == device.credentialID)
        #expect(registered.algorithm == COSEAlgorithm(algorithm))
        #expect(registered.publicKey == device.coseKey)
        #expect(registered.signCount == 1)
        #expect(registered.attestationFormat == format)
        #expect(!registered.backupEligible && !registered.backedUp)
    }

    @Test func syncedCredentialKeepsBackupFlags() throws {
        let device = try authenticator(synced: true)
        let nonce = challenge()
        let response = device.register(challenge: nonce)
        let registered = try rp.verifyRegistration(
            clientDataJSON: response.clientDataJSON, attestationObject: response.attestationObject, challenge: nonce)
        #expect(registered.backupEligible && registered.backedUp)
    }

    /// Registers `device`'s response after `tamper` changed its parts, and returns the refusal.
    func registrationError(
        _ device: SoftwareAuthenticator, challenge nonce: [UInt8]? = nil,
        clientDataJSON: [UInt8]? = nil, authData: [UInt8]? = nil, attestationObject: [UInt8]? = nil,
        format: String = "none"
    ) -> PasskeyError? {
        let issued = challenge()
        let clientData = clientDataJSON ?? device.clientData(type: "webauthn.create", challenge: nonce ?? issued)
        let data = authData ?? device.authenticatorData(attested: true)
        let object =
            attestationObject ?? device.attestationObject(format: format, authData: data, clientDataJSON: clientData)
        do {
            _ = try rp.verifyRegistration(clientDataJSON: clientData, attestationObject: object, challenge: issued)
            return nil
        } catch { return error }
    }

    @Test func untamperedHelperResponseIsAccepted() throws {
        #expect(registrationError(try authenticator()) == nil)
    }

    @Test func wrongTypeIsRefused() throws {
        let device = try authenticator()
        let issued = challenge()
        let clientData = device.clientData(type: "webauthn.get", challenge: issued)
        let object = device.attestationObject(
            authData: device.authenticatorData(attested: true), clientDataJSON: clientData)
        #expect(throws: PasskeyError.wrongType) {
            try rp.verifyRegistration(clientDataJSON: clientData, attestationObject: object, challenge: issued)
        }
    }

    @Test func otherChallengeIsRefused() throws {
        #expect(registrationError(try authenticator(), challenge: challenge()) == .wrongChallenge)
    }

    @Test func otherOriginIsRefused() throws {
        let device = try authenticator()
        for origin in [
            "https://evil.example", "http://id.example.com", "https://id.example.com:8443",
            "https://sub.id.example.com",
        ] {
            let issued = challenge()
            let clientData = device.clientData(type: "webauthn.create", challenge: issued, origin: origin)
            let object = device.attestationObject(
                authData: device.authenticatorData(attested: true), clientDataJSON: clientData)
            #expect(throws: PasskeyError.wrongOrigin) {
                try rp.verifyRegistration(clientDataJSON: clientData, attestationObject: object, challenge: issued)
            }
        }
    }

    @Test func crossOriginIsRefused() throws {
        let device = try authenticator()
        let issued = challenge()
        let clientData = device.clientData(type: "webauthn.create", challenge: issued, crossOrigin: true)
        let object = device.attestationObject(
            authData: device.authenticatorData(attested: true), clientDataJSON: clientData)
        #expect(throws: PasskeyError.wrongOrigin) {
            try rp.verifyRegistration(clientDataJSON: clientData, attestationObject: object, challenge: issued)
        }
    }

    @Test func otherRPIDHashIsRefused() throws {
        let device = try authenticator()
        let hash = Digest.sha256.hash(Array("evil.example".utf8))
        #expect(
            registrationError(device, authData: device.authenticatorData(attested: true, rpIDHash: hash))
                == .wrongRPIDHash)
    }

    @Test func userPresenceAndVerificationAreRequired() throws {
        var device = try authenticator()
        device.flags = AuthenticatorData.userVerified
        #expect(registrationError(device) == .userNotPresent)
        device.flags = AuthenticatorData.userPresent
        #expect(registrationError(device) == .userNotVerified)
    }

    @Test func backedUpWithoutBackupEligibleIsRefused() throws {
        var device = try authenticator()
        device.flags |= AuthenticatorData.backedUp
        #expect(registrationError(device) == .inconsistentBackupFlags)
    }

    @Test func otherFormatsAreRefused() throws {
        #expect(
            registrationError(try authenticator(), format: "fido-u2f") == .unsupportedAttestation("format fido-u2f"))
    }

    @Test func packedSignatureByAnotherKeyIsRefused() throws {
        let device = try authenticator()
        let other = try authenticator()
        let issued = challenge()
        let clientData = device.clientData(type: "webauthn.create", challenge: issued)
        let data = device.authenticatorData(attested: true)
        // The other key signs the same bytes; the statement is lifted into this response.
        let forged = other.attestationObject(format: "packed", authData: data, clientDataJSON: clientData)
        #expect(throws: PasskeyError.badSignature) {
            try rp.verifyRegistration(clientDataJSON: clientData, attestationObject: forged, challenge: issued)
        }
    }

    @Test func packedOverOtherClientDataIsRefused() throws {
        let device = try authenticator()
        let issued = challenge()
        let clientData = device.clientData(type: "webauthn.create", challenge: issued)
        let signedOver = device.clientData(type: "webauthn.create", challenge: challenge())
        let object = device.attestationObject(
            format: "packed", authData: device.authenticatorData(attested: true), clientDataJSON: signedOver)
        #expect(throws: PasskeyError.badSignature) {
            try rp.verifyRegistration(clientDataJSON: clientData, attestationObject: object, challenge: issued)
        }
    }

    @Test func noneWithAStatementIsRefused() throws {
        let device = try authenticator()
        let issued = challenge()
        let clientData = device.clientData(type: "webauthn.create", challenge: issued)
        let object = CBORValue.map([
            CBORPair(.text("fmt"), .text("none")), CBORPair(.text("attStmt"), .map([CBORPair(.text("x"), .null)])),
            CBORPair(.text("authData"), .bytes(device.authenticatorData(attested: true))),
        ]).encoded()
        #expect(throws: PasskeyError.unsupportedAttestation("none with a statement")) {
            try rp.verifyRegistration(clientDataJSON: clientData, attestationObject: object, challenge: issued)
        }
    }

    @Test func trailingBytesAfterAuthenticatorDataAreRefused() throws {
        let device = try authenticator()
        let error = registrationError(device, authData: device.authenticatorData(attested: true) + [0])
        #expect(error == .malformed("authenticator data has trailing bytes"))
    }

    @Test func unsupportedCOSEAlgorithmIsRefused() throws {
        let device = try authenticator()
        var data = Digest.sha256.hash(Array(rp.rpID.utf8)) + [0x45, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 16)
        data += [0, 4, 1, 2, 3, 4]
        // ES384 (-35) on P-384: a key type this relying party does not accept.
        data += CBORValue.map([
            CBORPair(.unsigned(1), .unsigned(2)), CBORPair(.unsigned(3), .negative(34)),
            CBORPair(.negative(0), .unsigned(2)), CBORPair(.negative(1), .bytes([UInt8](repeating: 1, count: 48))),
            CBORPair(.negative(2), .bytes([UInt8](repeating: 2, count: 48))),
        ]).encoded()
        #expect(registrationError(device, authData: data) == .unsupportedKey("alg -35"))
    }

    @Test func pointOffTheCurveIsRefused() throws {
        let device = try authenticator()
        var data = Digest.sha256.hash(Array(rp.rpID.utf8)) + [0x45, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 16)
        data += [0, 4, 1, 2, 3, 4]
        data += CBORValue.map([
            CBORPair(.unsigned(1), .unsigned(2)), CBORPair(.unsigned(3), .negative(6)),
            CBORPair(.negative(0), .unsigned(1)), CBORPair(.negative(1), .bytes([UInt8](repeating: 1, count: 32))),
            CBORPair(.negative(2), .bytes([UInt8](repeating: 2, count: 32))),
        ]).encoded()
        guard case .unsupportedKey = registrationError(device, authData: data) else {
            Issue.record("a point off P-256 was accepted")
            return
        }
    }

    // MARK: Assertion

    /// Registers `device` and returns what the server would store.
    func registered(_ device: SoftwareAuthenticator) throws -> PasskeyRegistration {
        let nonce = challenge()
        let response = device.register(challenge: nonce)
        return try rp.verifyRegistration(
            clientDataJSON: response.clientDataJSON, attestationObject: response.attestationObject, challenge: nonce)
    }

    func verify(
        _ stored: PasskeyRegistration,
        _ assertion: (clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8]),
        challenge nonce: [UInt8], storedSignCount: UInt32? = nil
    ) throws(PasskeyError) -> PasskeyAssertion {
        try rp.verifyAssertion(
            clientDataJSON: assertion.clientDataJSON, authenticatorData: assertion.authenticatorData,
            signature: assertion.signature, challenge: nonce, publicKey: stored.publicKey,
            storedSignCount: storedSignCount ?? stored.signCount, backupEligible: stored.backupEligible)
    }

    @Test(arguments: [SignatureAlgorithm.es256, .edDSA, .rs256])
    func assertionOfEachAlgorithmIsAccepted(_ algorithm: SignatureAlgorithm) throws {
        var device = try authenticator(algorithm)
        let stored = try registered(device)
        let nonce = challenge()
        let result = try verify(stored, device.assert(challenge: nonce), challenge: nonce)
        #expect(result.signCount == 2)
    }

    @Test func assertionSignedByAnotherKeyIsRefused() throws {
        let device = try authenticator()
        var other = try authenticator()
        let stored = try registered(device)
        let nonce = challenge()
        #expect(throws: PasskeyError.badSignature) {
            try verify(stored, other.assert(challenge: nonce), challenge: nonce)
        }
    }

    @Test func assertionWithChangedAuthenticatorDataIsRefused() throws {
        var device = try authenticator()
        let stored = try registered(device)
        let nonce = challenge()
        var assertion = device.assert(challenge: nonce)
        assertion.authenticatorData[36] ^= 1
        #expect(throws: PasskeyError.badSignature) { try verify(stored, assertion, challenge: nonce) }
    }

    @Test func assertionForAnotherChallengeOrTypeIsRefused() throws {
        var device = try authenticator()
        let stored = try registered(device)
        #expect(throws: PasskeyError.wrongChallenge) {
            try verify(stored, device.assert(challenge: challenge()), challenge: challenge())
        }
        let nonce = challenge()
        let created = device.register(challenge: nonce)
        let data = device.authenticatorData(attested: false)
        let signature = device.key.coseSignature(of: data + Digest.sha256.hash(created.clientDataJSON)) ?? []
        #expect(throws: PasskeyError.wrongType) {
            try verify(stored, (created.clientDataJSON, data, signature), challenge: nonce)
        }
    }

    @Test func assertionWithoutUserVerificationIsRefused() throws {
        var device = try authenticator()
        let stored = try registered(device)
        device.flags = AuthenticatorData.userPresent
        let nonce = challenge()
        #expect(throws: PasskeyError.userNotVerified) {
            try verify(stored, device.assert(challenge: nonce), challenge: nonce)
        }
    }

    @Test func assertionFromAnotherOriginIsRefused() throws {
        var device = try authenticator()
        let stored = try registered(device)
        device.origin = "https://evil.example"
        let nonce = challenge()
        #expect(throws: PasskeyError.wrongOrigin) {
            try verify(stored, device.assert(challenge: nonce), challenge: nonce)
        }
    }

    @Test func signCountGoingBackIsRefused() throws {
        var device = try authenticator()
        let stored = try registered(device)
        let nonce = challenge()
        let assertion = device.assert(challenge: nonce)
        #expect(throws: PasskeyError.signCountRegressed(stored: 2, presented: 2)) {
            try verify(stored, assertion, challenge: nonce, storedSignCount: 2)
        }
        #expect(throws: PasskeyError.signCountRegressed(stored: 7, presented: 2)) {
            try verify(stored, assertion, challenge: nonce, storedSignCount: 7)
        }
    }

    @Test func authenticatorWithoutCounterIsAccepted() throws {
        var device = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin, signCount: 0)
        let stored = try registered(device)
        for _ in 0..<2 {
            let nonce = challenge()
            #expect(try verify(stored, device.assert(challenge: nonce), challenge: nonce).signCount == 0)
        }
    }

    @Test func backupEligibilityCannotChange() throws {
        var device = try authenticator(synced: true)
        let stored = try registered(device)
        device.flags = AuthenticatorData.userPresent | AuthenticatorData.userVerified
        let nonce = challenge()
        #expect(throws: PasskeyError.inconsistentBackupFlags) {
            try verify(stored, device.assert(challenge: nonce), challenge: nonce)
        }
    }

    // MARK: The relying party of an issuer

    @Test func issuerGivesRPIDAndOrigin() throws {
        let https = try #require(PasskeyRelyingParty(issuer: "https://ID.example.com"))
        #expect(https.rpID == "id.example.com" && https.origin == "https://id.example.com")
        let port = try #require(PasskeyRelyingParty(issuer: "http://localhost:8080"))
        #expect(port.rpID == "localhost" && port.origin == "http://localhost:8080")
        #expect(PasskeyRelyingParty(issuer: "not a url") == nil)
    }
}
