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
        try await validGrant(minimumLifetime: minimumLifetime).accessToken
    }

    /// The grant, refreshed first when its access token has less than `minimumLifetime` left.
    func validGrant(minimumLifetime: TimeInterval = expiryMargin) async throws(AuthorizationError) -> StoredGrant {
        guard let grant = try loadGrant() else {
            throw AuthorizationError(.authorizationRequired, "nobody is signed in")
        }
        let need = RefreshNeed(minimumLifetime: minimumLifetime)
        if need.isMet(by: grant, at: now()) { return grant }
        return try await refreshedGrant(need)
    }

    /// Refreshes now, even if the access token is still fresh (the scopes changed at the
    /// provider), and returns the new access token: the stored one is taken as refused.
    ///
    /// After a backend refused a token, prefer ``forceRefresh(replacing:)`` with that token:
    /// ten requests refused at once then share one refresh, and a call made after someone
    /// else's refresh gets that fresh token instead of starting another.
    @discardableResult
    public func forceRefresh() async throws(AuthorizationError) -> String {
        guard let grant = try loadGrant() else {
            throw AuthorizationError(.authorizationRequired, "nobody is signed in")
        }
        return try await forceRefresh(replacing: grant.accessToken)
    }

    /// An access token other than `refusedAccessToken`, which the backend has just refused:
    /// the stored one if someone already replaced it, else a new one from a refresh.
    ///
    /// Never hands back `refusedAccessToken`, even when the call joins a refresh that others
    /// started for other reasons (that one may have found the refused token still fresh).
    @discardableResult
    public func forceRefresh(replacing refusedAccessToken: String) async throws(AuthorizationError) -> String {
        guard let grant = try loadGrant() else {
            throw AuthorizationError(.authorizationRequired, "nobody is signed in")
        }
        let need = RefreshNeed(minimumLifetime: Self.expiryMargin, refused: refusedAccessToken)
        if need.isMet(by: grant, at: now()) { return grant.accessToken }
        return try await refreshedGrant(need).accessToken
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

    /// The grant after a shared refresh (or after someone else's that just finished) that
    /// answers `need`.
    ///
    /// The caller waits at most ``refreshTimeout``; the refresh itself (the flight) stays the
    /// one refresh of this grant until its request ends, bounded by the same timeout per
    /// request, so no caller ever sends the refresh token while an earlier request with it may
    /// still reach the provider. A joined flight started for another need (a fresh token
    /// found, another resource) is followed by one of this caller's own.
    func refreshedGrant(_ need: RefreshNeed = RefreshNeed()) async throws(AuthorizationError) -> StoredGrant {
        let key = grantKey
        do {
            return try await withDeadline(refreshTimeout, "the token refresh") { [self] in
                for _ in 0..<3 {
                    let grant = try await RefreshCoordinator.shared.run(key: key) { [self] in
                        try await refreshFlight(need)
                    }
                    if need.isAnswered(by: grant, at: now()) { return grant }
                }
                throw AuthorizationError(.invalidResponse, "the provider did not replace the refused access token")
            }
        } catch {
            let failure = AuthorizationError.wrap(error, as: .network, "the token refresh failed")
            PorticoKitLog.log(.error, "\(clientID) at \(provider.identifier): \(failure.message)")
            throw failure
        }
    }

    /// One flight: waits for the store's cross-process refresh lease (at most
    /// ``refreshTimeout``: the only part of a flight that is abandoned), then refreshes.
    private func refreshFlight(_ need: RefreshNeed) async throws -> StoredGrant {
        let gate = FlightGate()
        let timeout = refreshTimeout
        let work = Task { [self] in
            try await store.whileRefreshing(storeKey) { [self] in
                guard gate.begin() else {
                    throw AuthorizationError(.timedOut, "another process held the refresh for too long")
                }
                return try await refreshNow(need)
            }
        }
        let watchdog = Task {
            try? await Task.sleep(for: .milliseconds(Int64(timeout * 1000)))
            if gate.abandon() { work.cancel() }
        }
        defer { watchdog.cancel() }
        return try await work.value
    }

    /// One refresh: re-reads the store first, since a refresh may have finished meanwhile.
    private func refreshNow(_ need: RefreshNeed) async throws(AuthorizationError) -> StoredGrant {
        let epoch = SignOutLedger.shared.epoch(grantKey)
        guard let grant = try loadGrant() else {
            throw AuthorizationError(.authorizationRequired, "nobody is signed in")
        }
        if need.isMet(by: grant, at: now()) { return grant }
        guard let refreshToken = grant.refreshToken else {
            throw AuthorizationError(.authorizationRequired, "the access token expired and there is no refresh token")
        }
        var fields = [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", clientID)]
        if let resource = need.resource { fields.append(("resource", resource)) }
        // A bound refresh token is refused without a proof by the same key (RFC 9449 §5).
        let key = grant.isDPoPBound ? try dpopKey() : try dpopKeyForNewGrant()
        let tokenEndpoint = TokenEndpointClient(http: HTTPClient.timingOut(after: refreshTimeout), dpopKey: key)
        let reply = try await tokenEndpoint.post(provider.tokenEndpoint, fields)
        let tokens: TokenResponse
        do {
            tokens = try TokenResponse(reply: reply)
        } catch  where error.oauthError == "invalid_grant" {
            // The provider no longer honours this grant (revoked, expired, reused): forget it,
            // unless a sign-in stored another one meanwhile.
            try SignOutLedger.shared.withLock(grantKey) { () throws(AuthorizationError) in
                guard try loadGrant()?.refreshToken == refreshToken else { return }
                try removeGrant()
                GrantChangeHub.shared.publish(.signedOut, for: grantKey)
            }
            PorticoKitLog.log(.info, "\(clientID) at \(provider.identifier): signed out")
            PorticoKitLog.log(.error, "\(clientID) at \(provider.identifier): the refresh was refused, signed out")
            throw AuthorizationError(
                .authorizationRequired, "the provider no longer accepts the stored grant; sign in again",
                oauthError: error.oauthError, oauthErrorDescription: error.oauthErrorDescription)
        }
        var refreshed: StoredGrant
        if let resource = need.resource {
            // A token for one resource server: the grant's own access token stays as it is.
            refreshed = grant
            refreshed.refreshToken = tokens.refreshToken ?? grant.refreshToken
            refreshed.resourceTokens[resource] = ResourceToken(
                accessToken: tokens.accessToken, expiresAt: tokens.expiresIn.map { now().addingTimeInterval($0) })
        } else {
            refreshed = try await makeGrant(from: tokens, requested: grant.scopes, nonce: nil, previous: grant)
        }
        guard try saveGrant(refreshed, since: epoch, announcing: .refreshed) else {
            throw AuthorizationError(.authorizationRequired, "the app signed out during the token refresh")
        }
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
            for token in grant.resourceTokens.values { tokens.append((token.accessToken, "access_token")) }
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
        try SignOutLedger.shared.signOut(grantKey) { () throws(AuthorizationError) in
            try removeGrant()
            GrantChangeHub.shared.publish(.signedOut, for: grantKey)
        }
        flights.cancelAll()
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
