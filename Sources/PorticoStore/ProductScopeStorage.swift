import Foundation

/// The scopes products add to the catalog (`portico scope add`).
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol ProductScopeStorage {
    /// Adds a product scope; the name is unique.
    func insert(_ scope: ProductScope) throws
    /// The product scope with this name.
    func productScope(name: String) throws -> ProductScope?
    /// All product scopes, by name.
    func productScopes() throws -> [ProductScope]
    /// Replaces the description of the stored scope with that of `scope`.
    func update(_ scope: ProductScope) throws
    /// Removes a product scope.
    @discardableResult func deleteProductScope(name: String) throws -> Bool
}
