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

    /// A scope ready to insert.
    public init(name: String, description: String, createdAt: Date = Date()) {
        self.name = name
        self.description = description
        self.createdAt = createdAt
    }
}
