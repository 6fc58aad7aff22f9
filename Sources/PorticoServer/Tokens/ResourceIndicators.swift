import Foundation
import PorticoStore

/// Resource indicators (RFC 8707): which resource servers a client may ask tokens for, and
/// what an access token meant for one says.
///
/// A client may name the URIs registered for it (`client add --resource`) and those of the
/// product scopes it may ask for (`scope add --resource`). An access token asked for with
/// `resource` carries that URI alone in `aud`, so a resource server accepts only tokens meant
/// for it; without one, `aud` is the issuer, which is what userinfo and the profile accept.
/// One resource per request: several tokens for several servers take several requests.
enum ResourceIndicators {
    /// The resource servers `client` may ask for, in registration order.
    static func allowed(for client: Client, in transaction: any StoreTransaction) throws -> [String] {
        var allowed = client.resources
        let scopes = Set(client.allowedScopes)
        for scope in try transaction.productScopes() where scopes.contains(scope.name) {
            if let resource = scope.resource, !allowed.contains(resource) { allowed.append(resource) }
        }
        return allowed
    }

    /// Whether `uri` has the shape RFC 8707 §2 asks of a resource: an absolute URI without a
    /// fragment.
    static func isWellFormed(_ uri: String) -> Bool {
        guard !uri.contains("#"), uri.utf8.count <= 2048, let components = URLComponents(string: uri),
            let scheme = components.scheme, !scheme.isEmpty
        else { return false }
        return components.host.map { !$0.isEmpty } ?? false
    }

    /// Checks a requested `resource` for `client`.
    ///
    /// - Throws: `invalid_target` for a malformed URI or one not registered for the client.
    static func check(_ resource: String, for client: Client, in transaction: any StoreTransaction)
        throws -> String
    {
        guard isWellFormed(resource) else {
            throw OAuthError.invalidTarget("The resource must be an absolute URI without a fragment.")
        }
        guard try allowed(for: client, in: transaction).contains(resource) else {
            throw OAuthError.invalidTarget("This client may not ask for tokens meant for \(resource).")
        }
        return resource
    }
}
