import PorticoCrypto

/// The members of a `PublicKeyCredential` the page's script posts (one form field, JSON, each
/// binary member base64url): `id`, and `clientDataJSON` with `attestationObject` (registration)
/// or `authenticatorData`, `signature` and `userHandle` (assertion).
struct PasskeyResponseFields {
    /// The longest field read; real responses are a few kilobytes at most.
    static let maximumLength = 65_536

    let members: [String: [UInt8]]

    init?(_ text: String?) {
        guard let text, text.utf8.count <= Self.maximumLength, let value = JSONValue(parsing: Array(text.utf8)),
            let object = value.objectValue
        else { return nil }
        var members: [String: [UInt8]] = [:]
        for (name, member) in object {
            guard let string = member.stringValue else { continue }
            guard let bytes = Base64URL.decode(string) else { return nil }
            members[name] = bytes
        }
        self.members = members
    }

    subscript(_ name: String) -> [UInt8]? { members[name] }
}
