import Foundation

extension AuthorizationManager {
    /// An access token meant for the resource server `resource` alone (RFC 8707 resource
    /// indicators): its `aud` is `resource`, so that server accepts it and no other does.
    ///
    /// The token comes from the grant's refresh token (a refresh with `resource=`), through
    /// the same single refresh as every other, and is kept beside the grant's own access
    /// token until it is about to expire: a second call returns it without a request. The
    /// provider rotates the refresh token on each such refresh; the grant keeps the new one.
    /// `resource` must be registered for the client at the provider, else the provider answers
    /// `invalid_target` and nothing changes.
    ///
    /// When the grant is DPoP-bound (``StoredGrant/tokenType``), so is this token: send it
    /// with the `DPoP` scheme and a proof of the installation's key, not as a bearer token.
    ///
    /// - Parameters:
    ///   - resource: the resource server's URI, absolute and without a fragment, exactly as
    ///     registered.
    ///   - minimumLifetime: how long the token must still be good for (60 s).
    public func accessToken(for resource: URL, minimumLifetime: TimeInterval = 60) async throws(AuthorizationError)
        -> String
    {
        let uri = resource.absoluteString
        guard resource.scheme != nil, !(resource.host ?? "").isEmpty, resource.fragment == nil, !uri.contains("#")
        else {
            throw AuthorizationError(.invalidInput, "a resource is an absolute URI without a fragment (RFC 8707)")
        }
        guard let grant = try loadGrant() else {
            throw AuthorizationError(.authorizationRequired, "nobody is signed in")
        }
        let need = RefreshNeed(minimumLifetime: minimumLifetime, resource: uri)
        if need.isMet(by: grant, at: now()), let token = need.token(in: grant) { return token.value }
        guard let token = need.token(in: try await refreshedGrant(need)) else {
            throw AuthorizationError(.invalidResponse, "the refresh brought no token for \(uri)")
        }
        return token.value
    }
}
