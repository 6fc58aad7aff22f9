/// Why a passkey registration or assertion was refused; each case names the WebAuthn check
/// (Level 3 §7.1, §7.2) that failed, for the audit log and the tests. People see one generic
/// message whatever the case, so a refusal tells an attacker nothing about accounts.
public enum PasskeyError: Error, Sendable, Equatable {
    /// A structure could not be read (JSON, CBOR, base64url, lengths); the string says which.
    case malformed(String)
    /// `clientDataJSON.type` is not `webauthn.create` / `webauthn.get`.
    case wrongType
    /// `clientDataJSON.challenge` is not the challenge this ceremony issued.
    case wrongChallenge
    /// `clientDataJSON.origin` is not the issuer's origin (or the request was cross-origin).
    case wrongOrigin
    /// `rpIdHash` is not SHA-256 of the issuer's host.
    case wrongRPIDHash
    /// The UP flag is not set.
    case userNotPresent
    /// The UV flag is not set; Portico requires user verification.
    case userNotVerified
    /// BS is set without BE, or BE changed since registration (BE never changes).
    case inconsistentBackupFlags
    /// The credential's algorithm or key is not ES256, EdDSA or RS256, or its key is invalid.
    case unsupportedKey(String)
    /// The attestation format is not `none` or `packed`, or its statement is not acceptable.
    case unsupportedAttestation(String)
    /// The attestation or assertion signature does not verify.
    case badSignature
    /// The signature counter did not increase (a possibly cloned authenticator, §7.2 step 23).
    case signCountRegressed(stored: UInt32, presented: UInt32)
    /// The credential id is already registered (to this or another person).
    case credentialExists
    /// No registered credential has this id, or its user handle is not the one presented.
    case unknownCredential
}
