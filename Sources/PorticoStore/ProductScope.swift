import Foundation

/// A scope that the platform defines for its own resource servers (`portico scope add`),
/// beyond the built-in OpenID ones.
public struct ProductScope: Sendable, Hashable {
    /// The scope as clients request it; unique.
    public var name: String
    /// The plain words the consent page shows for it.
    public var description: String
    /// When it was added.
    public var createdAt: Date
    /// The resource server (RFC 8707) that accepts it, if the operator named one: a client that
    /// may ask for the scope may ask for tokens meant for this server.
    public var resource: String? = nil

    /// A scope ready to insert.
    public init(name: String, description: String, createdAt: Date = Date(), resource: String? = nil) {
        self.name = name
        self.description = description
        self.createdAt = createdAt
        self.resource = resource
    }
}
