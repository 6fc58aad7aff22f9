/// What `portico serve --demo` prints so that a newcomer can try the whole flow at once.
public struct DemoCredentials: Sendable, Equatable {
    /// The demo app's page, `<issuer>/demo`: the one URL to open.
    public let startURL: String
    /// The demo person's e-mail address.
    public let email: String
    /// The demo person's password, or nil when it was changed since the demo created it.
    public let password: String?
    /// The demo app's `client_id`.
    public let clientID: String
}
