import Foundation
import PorticoCrypto

/// The relying party's checks of WebAuthn Level 3 §7.1 (registration) and §7.2 (assertion),
/// for one RP ID (the issuer's host) and one origin (the issuer's origin).
///
/// Pure: no storage, no clock. Callers fetch the challenge they issued and the stored
/// credential, and persist what these functions return; that keeps every check here testable
/// with keys made on the spot. User verification is always required.
public struct PasskeyRelyingParty: Sendable {
    /// The RP ID: the issuer's host.
    public let rpID: String
    /// The only origin accepted: the issuer's scheme, host and port.
    public let origin: String
    /// SHA-256 of `rpID`, compared with every `rpIdHash`.
    let rpIDHash: [UInt8]

    /// A relying party for an explicit RP ID and origin.
    public init(rpID: String, origin: String) {
        self.rpID = rpID
        self.origin = origin
        self.rpIDHash = Digest.sha256.hash(Array(rpID.utf8))
    }

    /// The relying party of an issuer URL: RP ID its host, origin its scheme, host and
    /// (non-default) port. Nil when the issuer has no host.
    public init?(issuer: String) {
        guard let components = URLComponents(string: issuer), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        var origin = "\(scheme)://\(host)"
        if let port = components.port, !(scheme == "https" && port == 443), !(scheme == "http" && port == 80) {
            origin += ":\(port)"
        }
        self.init(rpID: host, origin: origin)
    }

    /// The relying parties made by ``init(issuer:)`` so far, by issuer (a node has one or two).
    private static let byIssuer = BoundedCache<String, PasskeyRelyingParty?>(capacity: 16)

    /// ``init(issuer:)``, made once per issuer and then remembered: parsing the issuer URL and
    /// hashing its host showed in a passkey sign-in's profile, twice per ceremony, for the same
    /// answer every time.
    static func of(issuer: String) -> PasskeyRelyingParty? {
        byIssuer.value(for: issuer) { PasskeyRelyingParty(issuer: issuer) }
    }

    /// §7.1: checks a new credential created for `challenge` and returns what to store.
    /// The caller checks that the credential id is not yet registered (step 26).
    public func verifyRegistration(clientDataJSON: [UInt8], attestationObject: [UInt8], challenge: [UInt8])
        throws(PasskeyError) -> PasskeyRegistration
    {
        // Steps 5–10.
        let clientData = try CollectedClientData(json: clientDataJSON)
        try clientData.check(type: "webauthn.create", challenge: challenge, origin: origin)
        // Step 11.
        let clientDataHash = Digest.sha256.hash(clientDataJSON)
        // Step 12.
        guard attestationObject.count <= 65_536 else { throw .malformed("attestation object is too long") }
        let object: CBORValue
        do { object = try CBORValue(decoding: attestationObject) } catch {
            throw .malformed("attestation object: \(error)")
        }
        guard let format = object[text: "fmt"]?.textValue, let statement = object[text: "attStmt"],
            case .map = statement, let authDataBytes = object[text: "authData"]?.bytesValue
        else { throw .malformed("attestation object lacks fmt, attStmt or authData") }
        let authData = try AuthenticatorData(bytes: authDataBytes)
        // Steps 13–16.
        try checkFlagsAndRPID(authData)
        // Steps 19 and 25: an accepted algorithm and a key OpenSSL imports.
        guard let attested = authData.attestedCredential else {
            throw .malformed("registration without attested credential data")
        }
        let key = try COSEKey(cbor: attested.publicKey)
        // Steps 21–24: `none`, or `packed` self attestation.
        switch format {
        case "none":
            guard statement.mapValue?.isEmpty == true else { throw .unsupportedAttestation("none with a statement") }
        case "packed":
            guard statement[text: "x5c"] == nil else {
                throw .unsupportedAttestation("packed with a certificate chain (no trust anchors are configured)")
            }
            guard statement[text: "ecdaaKeyId"] == nil else { throw .unsupportedAttestation("packed ECDAA") }
            guard let alg = statement[text: "alg"]?.integerValue, alg == key.algorithm.rawValue else {
                throw .unsupportedAttestation("packed self attestation alg differs from the credential's")
            }
            guard let signature = statement[text: "sig"]?.bytesValue else {
                throw .unsupportedAttestation("packed without sig")
            }
            guard key.verify(signature: signature, of: authDataBytes + clientDataHash) else { throw .badSignature }
        default:
            throw .unsupportedAttestation("format \(format)")
        }
        return PasskeyRegistration(
            credentialID: attested.credentialID, publicKey: attested.publicKey, algorithm: key.algorithm,
            signCount: authData.signCount, backupEligible: authData.has(AuthenticatorData.backupEligible),
            backedUp: authData.has(AuthenticatorData.backedUp), aaguid: attested.aaguid, attestationFormat: format)
    }

    /// §7.2: checks an assertion for `challenge` made with a stored credential (its COSE key,
    /// counter and BE flag), and returns what to write back. The caller has already matched the
    /// credential id and user handle to the stored credential (step 6). With `keys`, the stored
    /// key is imported once per distinct COSE_Key and taken from the cache afterwards.
    public func verifyAssertion(
        clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], challenge: [UInt8],
        publicKey: [UInt8], storedSignCount: UInt32, backupEligible: Bool, keys: PasskeyKeyCache? = nil
    ) throws(PasskeyError) -> PasskeyAssertion {
        // Steps 9–15.
        let clientData = try CollectedClientData(json: clientDataJSON)
        try clientData.check(type: "webauthn.get", challenge: challenge, origin: origin)
        guard authenticatorData.count <= 65_536 else { throw .malformed("authenticator data is too long") }
        let authData = try AuthenticatorData(bytes: authenticatorData)
        guard authData.attestedCredential == nil else { throw .malformed("assertion with attested credential data") }
        // Steps 16–19.
        try checkFlagsAndRPID(authData)
        guard authData.has(AuthenticatorData.backupEligible) == backupEligible else { throw .inconsistentBackupFlags }
        // Steps 21–22.
        let key: COSEKey
        if let keys { key = try keys.key(cbor: publicKey) } else { key = try COSEKey(cbor: publicKey) }
        let clientDataHash = Digest.sha256.hash(clientDataJSON)
        guard key.verify(signature: signature, of: authenticatorData + clientDataHash) else { throw .badSignature }
        // Step 23: a counter that does not grow (when either side counts) may be a clone.
        if authData.signCount != 0 || storedSignCount != 0, authData.signCount <= storedSignCount {
            throw .signCountRegressed(stored: storedSignCount, presented: authData.signCount)
        }
        return PasskeyAssertion(
            signCount: authData.signCount, backedUp: authData.has(AuthenticatorData.backedUp),
            backupEligible: backupEligible)
    }

    /// rpIdHash, UP, UV, and BS only with BE.
    private func checkFlagsAndRPID(_ authData: AuthenticatorData) throws(PasskeyError) {
        guard ConstantTime.equals(authData.rpIDHash, rpIDHash) else { throw .wrongRPIDHash }
        guard authData.has(AuthenticatorData.userPresent) else { throw .userNotPresent }
        guard authData.has(AuthenticatorData.userVerified) else { throw .userNotVerified }
        if authData.has(AuthenticatorData.backedUp), !authData.has(AuthenticatorData.backupEligible) {
            throw .inconsistentBackupFlags
        }
    }
}
