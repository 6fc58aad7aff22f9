/// Which question the companion puts to the person for one app.
public enum CompanionConsentKind: String, Codable, Sendable {
    /// The app asks for permissions the person has not given it yet: a full consent.
    case consent
    /// The app was allowed before: one click, "Continue as <name>". Something the person does
    /// is still needed, because a native app's identity cannot be proven (RFC 8252 §8.6).
    case `continue`
}
