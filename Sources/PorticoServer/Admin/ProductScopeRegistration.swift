import PorticoStore

/// A request to add a product scope (`portico scope add`), the way Login with Amazon's
/// `AMZNScopeFactory` names scopes beyond the profile ones.
public struct ProductScopeRegistration: Sendable {
    /// The scope as clients will request it.
    public var name: String
    /// What it lets an app do, in the words the consent page shows.
    public var description: String
    /// The resource server (RFC 8707) that accepts it (`--resource`): apps allowed the scope may
    /// ask for tokens meant for that server.
    public var resource: String?

    /// A registration of these values.
    public init(name: String, description: String, resource: String? = nil) {
        self.name = name
        self.description = description
        self.resource = resource
    }

    /// Validates and stores the scope.
    @discardableResult
    public func register(in store: any Store) throws(AdminError) -> ProductScope {
        guard Self.isScopeToken(name) else {
            throw .invalid(
                "scope name '\(name)' is not a scope token (RFC 6749 §3.3): use printable ASCII without spaces, quotes or backslashes"
            )
        }
        guard !ScopeCatalog.builtInNames.contains(name) else {
            throw .invalid("'\(name)' is a built-in scope; pick another name")
        }
        let description = try AdminText.checked(description, field: "scope description", maximumLength: 200)
        if let resource, !ResourceIndicators.isWellFormed(resource) {
            throw .invalid("resource '\(resource)' is not an absolute URI without a fragment")
        }
        let scope = ProductScope(name: name, description: description, resource: resource)
        do {
            try store.transaction { transaction in
                try transaction.insert(scope)
                try transaction.append(AuditEvent(actor: "cli", action: "scope.add", subject: name))
            }
        } catch let error as StoreError {
            if case .duplicate = error { throw .conflict("the scope \(name) already exists") }
            throw .storage(error.description)
        } catch {
            throw AdminError.wrapping(error)
        }
        return scope
    }

    /// RFC 6749 §3.3: `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`; at most 100 characters.
    public static func isScopeToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 100
            && text.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }
}
