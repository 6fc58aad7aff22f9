/// A consent the provider asks the companion to show before it issues an app's code: what
/// the person sees, and the single-use ticket that carries their answer back.
public struct CompanionConsent: Sendable, Equatable {
    /// One permission in plain words.
    public struct Permission: Sendable, Equatable {
        /// The scope's name.
        public var name: String
        /// What it lets the app do, in the language asked for.
        public var description: String

        /// A permission.
        public init(name: String, description: String) {
            self.name = name
            self.description = description
        }
    }

    /// The single-use ticket for `POST /oauth/companion/consent` (5 minutes).
    public var ticket: String
    /// A full consent, or a one-click continue for an app already allowed.
    public var kind: CompanionConsentKind
    /// The app's client id.
    public var clientID: String
    /// The app's registered name.
    public var clientName: String
    /// The app's logo, if registered.
    public var logoURL: String?
    /// The app's privacy policy, if registered.
    public var privacyURL: String?
    /// The permissions asked for.
    public var permissions: [Permission]
    /// The signed-in person's name, when the provider says.
    public var personName: String?

    /// A consent as given.
    public init(
        ticket: String, kind: CompanionConsentKind, clientID: String, clientName: String, logoURL: String? = nil,
        privacyURL: String? = nil, permissions: [Permission], personName: String? = nil
    ) {
        self.ticket = ticket
        self.kind = kind
        self.clientID = clientID
        self.clientName = clientName
        self.logoURL = logoURL
        self.privacyURL = privacyURL
        self.permissions = permissions
        self.personName = personName
    }
}
