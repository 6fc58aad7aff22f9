import Foundation

/// What a person has allowed an app, remembered so that a later request for scopes already
/// granted skips the consent page.
public struct Consent: Sendable, Hashable {
    /// The person.
    public var userID: String
    /// The app.
    public var clientID: String
    /// Every scope granted so far (grants add up; revocation removes the whole consent).
    public var scopes: Set<String>
    /// The first grant.
    public var createdAt: Date
    /// The latest grant.
    public var updatedAt: Date

    /// A consent value; the store creates them through the provider's `ConsentPolicy.grant`.
    public init(userID: String, clientID: String, scopes: Set<String>, createdAt: Date, updatedAt: Date) {
        self.userID = userID
        self.clientID = clientID
        self.scopes = scopes
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether every scope of `requested` has been granted.
    public func covers<Scopes: Sequence>(_ requested: Scopes) -> Bool where Scopes.Element == String {
        requested.allSatisfy(scopes.contains)
    }
}
