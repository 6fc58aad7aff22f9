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
        try await validAccessToken(minimumLifetime: Self.expiryMargin)
    }

    /// An access token good for at least `minimumLifetime` seconds more, refreshing first when
    /// the stored one is closer to expiry: for a long upload, ask for its duration.
    ///
    /// A lifetime longer than the provider's tokens live makes every call refresh.
    public func validAccessToken(minimumLifetime: TimeInterval) async throws(AuthorizationError) -> String {
        guard let grant = try loadGrant() else {
            throw AuthorizationError(.authorizationRequired, "nobody is signed in")
        }
        if grant.hasFreshAccessToken(at: now(), margin: minimumLifetime) { return grant.accessToken }
        return try await refreshedGrant(minimumLifetime: minimumLifetime).accessToken
    }

    /// Refreshes now, even if the access token is still fresh (after the backend refused it,
    /// or when the granted scopes changed at the provider), and returns the new access token.
    /// Concurrent calls share one refresh, as every refresh does.
    @discardableResult
    public func forceRefresh() async throws(AuthorizationError) -> String {
        guard try loadGrant() != nil else {
            throw AuthorizationError(.authorizationRequired, "nobody is signed in")
        }
        return try await refreshedGrant(minimumLifetime: .infinity).accessToken
    }

    /// Whether a grant is stored: a quick local check for the first screen, with no network
    /// and no refresh; the grant may still turn out to be revoked at the provider. False also
    /// when the store cannot be read (a locked keychain): ``signInState`` tells those apart.
    public var isSignedIn: Bool {
        (try? loadGrant()) != nil
    }

    /// Signed in, signed out, or unknown because the store cannot be read now (a keychain
    /// still locked after a prewarmed launch), with no network.
    public var signInState: SignInState {
        do {
            return try loadGrant() == nil ? .signedOut : .signedIn
        } catch {
            return .unavailable(error)
        }
    }

    /// The raw ID token of the stored grant, when `openid` was granted (for a backend that
    /// verifies it, or `id_token_hint`).
    public var idToken: String? {
        (try? loadGrant())?.idToken
    }

    /// Sign-ins, refreshes and sign-outs of this grant from now on, by this manager or any
    /// other on the same store, provider and client; each access makes a new stream, which
    /// ends when the observing task does.
    public var grantChanges: AsyncStream<GrantChange> {
        GrantChangeHub.shared.stream(for: grantKey)
    }

    /// The grant after a shared refresh (or after someone else's that just finished).
    func refreshedGrant(minimumLifetime: TimeInterval = expiryMargin) async throws(AuthorizationError) -> StoredGrant {
        let key = grantKey
        do {
            return try await RefreshCoordinator.shared.run(key: key) { [self] in
                try await withDeadline(refreshTimeout, "the token refresh") { [self] in
                    try await store.whileRefreshing(storeKey) { [self] in
                        try await refreshNow(minimumLifetime: minimumLifetime)
                    }
                }
            }
        } catch {
            let failure = AuthorizationError.wrap(error, as: .network, "the token refresh failed")
            PorticoKitLog.log(.error, "\(clientID) at \(provider.identifier): \(failure.message)")
            throw failure
        }
    }

    /// One refresh: re-reads the store first, since a refresh may have finished meanwhile.
    private func refreshNow(minimumLifetime: TimeInterval) async throws(AuthorizationError) -> StoredGrant {
        let epoch = SignOutLedger.shared.epoch(grantKey)
        guard let grant = try loadGrant() else {
            throw AuthorizationError(.authorizationRequired, "nobody is signed in")
        }
        if minimumLifetime.isFinite, grant.hasFreshAccessToken(at: now(), margin: minimumLifetime) { return grant }
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
            GrantChangeHub.shared.publish(.signedOut, for: grantKey)
            PorticoKitLog.log(.info, "\(clientID) at \(provider.identifier): signed out")
            PorticoKitLog.log(.error, "\(clientID) at \(provider.identifier): the refresh was refused, signed out")
            throw AuthorizationError(
                .authorizationRequired, "the provider no longer accepts the stored grant; sign in again",
                oauthError: error.oauthError, oauthErrorDescription: error.oauthErrorDescription)
        }
        let refreshed = try await makeGrant(from: tokens, requested: grant.scopes, nonce: nil, previous: grant)
        guard try saveGrant(refreshed, since: epoch) else {
            throw AuthorizationError(.authorizationRequired, "the app signed out during the token refresh")
        }
        GrantChangeHub.shared.publish(.refreshed, for: grantKey)
        PorticoKitLog.log(.info, "\(clientID) at \(provider.identifier): refreshed the access token")
        return refreshed
    }

    /// Signs the person out (LWA's `signOut:`): revokes the refresh token and the access token
    /// at the provider when it supports RFC 7009 (Portico revokes the refresh token's whole
    /// family), then forgets the grant, even when the provider cannot be reached.
    ///
    /// Revocation is best effort, bounded by a short deadline; only a failure to clear the
    /// local store is thrown.
    ///
    /// With `endingProviderSession`, the provider's own session ends too (OpenID Connect
    /// RP-Initiated Logout at `end_session_endpoint`, with the ID token as `id_token_hint`),
    /// shown in the same user agent the sign-in used, so the next sign-in asks for the password
    /// again: what LWA's `signOut` means by clearing "the server side authentication state".
    /// That page is best effort as well.
    public func signOut(endingProviderSession: Bool = false) async throws(AuthorizationError) {
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
        GrantChangeHub.shared.publish(.signedOut, for: grantKey)
        PorticoKitLog.log(.info, "\(clientID) at \(provider.identifier): signed out")
        if endingProviderSession, let url = endSessionURL(idToken: grant?.idToken) {
            try? await userAgent.endSession(at: url, redirectURI: redirectURI)
        }
    }

    /// The RP-initiated logout URL: the endpoint's own query kept, `client_id`, and the ID
    /// token as `id_token_hint` when there is one.
    func endSessionURL(idToken: String?) -> URL? {
        guard let endpoint = provider.endSessionEndpoint else { return nil }
        var fields = [("client_id", clientID)]
        if let idToken { fields.insert(("id_token_hint", idToken), at: 0) }
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)
        let existing = components?.percentEncodedQuery.map { $0.isEmpty ? "" : $0 + "&" } ?? ""
        components?.percentEncodedQuery = existing + FormEncoding.encode(fields)
        return components?.url
    }
}
