import PorticoCrypto

/// The client data a browser signs over (WebAuthn Level 3 §5.8.1), parsed from
/// `clientDataJSON` as JSON, never matched as a template (browsers add members).
struct CollectedClientData {
    /// `type`: `webauthn.create` or `webauthn.get`.
    let type: String
    /// `challenge`, decoded from base64url.
    let challenge: [UInt8]
    /// `origin`.
    let origin: String
    /// `crossOrigin`, false when absent.
    let crossOrigin: Bool
    /// Whether `topOrigin` is present (only in cross-origin iframes).
    let hasTopOrigin: Bool

    /// The longest `clientDataJSON` read; browsers send a few hundred bytes.
    static let maximumLength = 4096

    init(json bytes: [UInt8]) throws(PasskeyError) {
        guard bytes.count <= Self.maximumLength else { throw .malformed("clientDataJSON is too long") }
        guard let value = JSONValue(parsing: bytes), let object = value.objectValue else {
            throw .malformed("clientDataJSON is not a JSON object")
        }
        guard let type = object["type"]?.stringValue else { throw .malformed("clientDataJSON has no type") }
        guard let encoded = object["challenge"]?.stringValue, let challenge = Base64URL.decode(encoded) else {
            throw .malformed("clientDataJSON has no base64url challenge")
        }
        guard let origin = object["origin"]?.stringValue else { throw .malformed("clientDataJSON has no origin") }
        if let cross = object["crossOrigin"], cross.boolValue == nil {
            throw .malformed("clientDataJSON crossOrigin is not a boolean")
        }
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.crossOrigin = object["crossOrigin"]?.boolValue ?? false
        self.hasTopOrigin = object["topOrigin"] != nil
    }

    /// Steps 7–10 of §7.1 and 12–15 of §7.2: type, challenge, origin, no cross-origin use.
    func check(type expectedType: String, challenge expected: [UInt8], origin expectedOrigin: String)
        throws(PasskeyError)
    {
        guard type == expectedType else { throw .wrongType }
        guard !expected.isEmpty, ConstantTime.equals(challenge, expected) else { throw .wrongChallenge }
        guard origin == expectedOrigin, !crossOrigin, !hasTopOrigin else { throw .wrongOrigin }
    }
}
