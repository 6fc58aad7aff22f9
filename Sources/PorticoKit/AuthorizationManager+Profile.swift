import Foundation

extension AuthorizationManager {
    /// The signed-in person's profile (LWA's `AMZNUser fetch:`), served from the store while
    /// younger than ``profileLifetime`` and fetched again after.
    ///
    /// Read from the provider's LWA-shaped profile endpoint when a profile scope was granted,
    /// else from OpenID Connect userinfo, else from the ID token's claims.
    public func fetchUser() async throws(AuthorizationError) -> User {
        let epoch = SignOutLedger.shared.epoch(grantKey)
        guard let grant = try loadGrant() else {
            throw AuthorizationError(.authorizationRequired, "nobody is signed in")
        }
        if let user = grant.user, let fetchedAt = grant.userFetchedAt,
            now().timeIntervalSince(fetchedAt) < profileLifetime
        {
            return user
        }
        let token = try await validAccessToken()
        let scopes = Set(grant.scopes)
        let user: User
        if let endpoint = provider.profileEndpoint,
            !scopes.isDisjoint(with: ["profile", "profile:user_id", "postal_code"])
        {
            user = try await profile(at: endpoint, token: token)
        } else if let endpoint = provider.userInfoEndpoint, scopes.contains(Scope.openID.name) {
            user = try await profile(at: endpoint, token: token)
        } else if let claims = grant.idTokenClaims, let fromToken = User(profile: claims) {
            user = fromToken
        } else {
            throw AuthorizationError(.invalidInput, "no granted scope lets this app read the profile")
        }
        if var latest = try loadGrant() {
            latest.user = user
            latest.userFetchedAt = now()
            _ = try saveGrant(latest, since: epoch)
        }
        return user
    }

    private func profile(at endpoint: URL, token: String) async throws(AuthorizationError) -> User {
        let reply = try await http.get(endpoint, bearer: token)
        guard reply.status == 200 else {
            if reply.status == 401 {
                throw AuthorizationError(.authorizationRequired, "the provider refused the access token")
            }
            throw reply.failure("the profile endpoint")
        }
        guard let json = reply.jsonObject, let user = User(profile: json) else {
            throw AuthorizationError(.invalidResponse, "the profile has no user id")
        }
        return user
    }
}
