import Foundation

extension AuthorizationManager {
    /// An access token that is good for at least another minute: the stored one, or a fresh
    /// one from a silent refresh.
    ///
    /// Concurrent callers (also through other managers on the same store) share one refresh.
    /// A refresh that fails for network reasons keeps the grant and throws
    /// ``AuthorizationError/Code/network``; one the provider rejects (`invalid_grant`) clears
    /// the grant and throws ``AuthorizationError/Code/authorizationRequired``.
    public func validAccessToken() async throws(AuthorizationError) -> String {
        guard let grant = try loadGrant() else {
            throw AuthorizationError(.authorizationRequired, "nobody is signed in")
        }
        if grant.hasFreshAccessToken(at: now(), margin: Self.expiryMargin) { return grant.accessToken }
        return try await refreshedGrant().accessToken
    }

    /// The grant after a shared refresh (or after someone else's that just finished).
    func refreshedGrant() async throws(AuthorizationError) -> StoredGrant {
        let key = grantKey
        do {
            return try await RefreshCoordinator.shared.run(key: key) { [self] in
                try await withDeadline(refreshTimeout, "the token refresh") { [self] in try await refreshNow() }
            }
        } catch {
            throw AuthorizationError.wrap(error, as: .network, "the token refresh failed")
        }
    }

    /// One refresh: re-reads the store first, since a refresh may have finished meanwhile.
    private func refreshNow() async throws(AuthorizationError) -> StoredGrant {
        let epoch = SignOutLedger.shared.epoch(grantKey)
        guard let grant = try loadGrant() else {
            throw AuthorizationError(.authorizationRequired, "nobody is signed in")
        }
        if grant.hasFreshAccessToken(at: now(), margin: Self.expiryMargin) { return grant }
        guard let refreshToken = grant.refreshToken else {
            throw AuthorizationError(.authorizationRequired, "the access token expired and there is no refresh token")
        }
        let reply = try await http.postForm(
            provider.tokenEndpoint,
            [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", clientID)])
        let tokens: TokenResponse
        do {
            tokens = try TokenResponse(reply: reply)
        } catch  where error.oauthError == "invalid_grant" {
            // The provider no longer honours this grant (revoked, expired, reused): forget it.
            try removeGrant()
            throw AuthorizationError(
                .authorizationRequired, "the provider no longer accepts the stored grant; sign in again",
                oauthError: error.oauthError, oauthErrorDescription: error.oauthErrorDescription)
        }
        let refreshed = try await makeGrant(from: tokens, requested: grant.scopes, nonce: nil, previous: grant)
        guard try saveGrant(refreshed, since: epoch) else {
            throw AuthorizationError(.authorizationRequired, "the app signed out during the token refresh")
        }
        return refreshed
    }

    /// Signs the person out (LWA's `signOut:`): revokes the refresh token and the access token
    /// at the provider when it supports RFC 7009 (Portico revokes the refresh token's whole
    /// family), then forgets the grant, even when the provider cannot be reached.
    ///
    /// Revocation is best effort, bounded by a short deadline; only a failure to clear the
    /// local store is thrown.
    public func signOut() async throws(AuthorizationError) {
        // Ends every interactive authorization (loopback, device, web session, custom scheme)
        // and keeps work already past the provider (a refresh, a code redemption) from writing
        // the grant back afterwards.
        redirects.current?.cancelAsSignedOut()
        flights.cancelAll()
        let grant = try? loadGrant()
        if let grant, let endpoint = provider.revocationEndpoint {
            var tokens: [(String, String)] = []
            if let refreshToken = grant.refreshToken { tokens.append((refreshToken, "refresh_token")) }
            tokens.append((grant.accessToken, "access_token"))
            let http = http
            let clientID = clientID
            let revocations = tokens
            _ = try? await withDeadline(min(refreshTimeout, 10), "the revocation") {
                for (token, hint) in revocations {
                    _ = try await http.postForm(
                        endpoint, [("token", token), ("token_type_hint", hint), ("client_id", clientID)])
                }
            }
        }
        try SignOutLedger.shared.signOut(grantKey) { () throws(AuthorizationError) in try removeGrant() }
        flights.cancelAll()
    }
}
