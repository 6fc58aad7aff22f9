/// One consent waiting for the person, as `portico-agent pending --json` lists it.
public struct CompanionPendingConsent: Codable, Sendable, Equatable {
    /// The agent's short id for it, for `approve ID` / `deny ID`.
    public var id: String
    /// The asking app's client id.
    public var clientID: String
    /// The app's name as the provider knows it (never the app's own claim).
    public var clientName: String
    /// A full consent, or a one-click continue.
    public var kind: CompanionConsentKind
    /// The permissions asked for, by scope name.
    public var scopes: [String]
    /// Each permission in plain words, in the agent's language (as many as ``scopes``).
    public var descriptions: [String]?

    /// A pending consent.
    public init(
        id: String, clientID: String, clientName: String, kind: CompanionConsentKind, scopes: [String],
        descriptions: [String]? = nil
    ) {
        self.id = id
        self.clientID = clientID
        self.clientName = clientName
        self.kind = kind
        self.scopes = scopes
        self.descriptions = descriptions
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, scopes, descriptions
        case clientID = "client_id"
        case clientName = "client_name"
    }
}
