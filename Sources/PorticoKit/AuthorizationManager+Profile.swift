import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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
        let current = try await validGrant()
        let scopes = Set(grant.scopes)
        let user: User
        if let endpoint = provider.profileEndpoint,
            !scopes.isDisjoint(with: ["profile", "profile:user_id", "postal_code"])
        {
            user = try await profile(at: endpoint, grant: current)
        } else if let endpoint = provider.userInfoEndpoint, scopes.contains(Scope.openID.name) {
            user = try await profile(at: endpoint, grant: current)
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

    /// Reads the profile with `grant`'s token; a DPoP `use_dpop_nonce` refusal is retried once
    /// with the server's nonce (RFC 9449 §9).
    private func profile(at endpoint: URL, grant: StoredGrant) async throws(AuthorizationError) -> User {
        var request = URLRequest(url: endpoint, timeoutInterval: http.timeout)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        var reply = try await http.send(try authorized(request, with: grant))
        let asksForNonce =
            reply.status == 401 && grant.isDPoPBound
            && reply.header("WWW-Authenticate")?.contains("use_dpop_nonce") == true
        if DPoPNonceBook.remember(from: reply, of: endpoint), asksForNonce {
            reply = try await http.send(try authorized(request, with: grant))
            DPoPNonceBook.remember(from: reply, of: endpoint)
        }
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
