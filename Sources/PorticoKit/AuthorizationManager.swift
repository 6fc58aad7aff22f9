import Foundation

/// Signs people in with a ``Provider`` and keeps their grant: the heart of PorticoKit, and the
/// counterpart of Login with Amazon's `AMZNAuthorizationManager`.
///
/// ```swift
/// let manager = AuthorizationManager(provider: provider, clientID: "…", redirectURI: callback)
/// let result = try await manager.authorize(AuthorizeRequest(scopes: [.profile]))
/// let token = try await manager.validAccessToken()
/// ```
///
/// A manager is cheap and `Sendable`; several may share one ``TokenStore`` (they then share
/// its refreshes). Every public call either returns or throws an ``AuthorizationError``.
public final class AuthorizationManager: Sendable {
    /// The provider people sign in with.
    public let provider: Provider
    /// The app's client id there.
    public let clientID: String
    /// The redirect URI the app registered: a loopback `http://127.0.0.1/callback` (any port
    /// is used), or a custom scheme URI. Nil for device login only.
    public let redirectURI: URL?
    /// Where the grant is kept.
    public let store: any TokenStore
    /// How the provider's pages reach the person.
    public let userAgent: any UserAgent
    /// How long a caller waits for a refresh before it gets ``AuthorizationError/Code/timedOut``,
    /// and how long a refresh request may go unanswered before it ends.
    public let refreshTimeout: TimeInterval
    /// How long a fetched profile is served from the store before it is fetched again.
    public let profileLifetime: TimeInterval
    /// How far the device clock may be off from the provider's when ID-token times (`exp`,
    /// `iat`, `nbf`, `auth_time`) are checked.
    public let idTokenLeeway: TimeInterval
    /// Whether tokens are bound to the installation's ``DPoPKey`` (RFC 9449) when the provider
    /// supports it (``Provider/supportsDPoP``): on by default, since a bound token or refresh
    /// token copied off the device is useless without the key. Grants already bound keep
    /// using their key either way.
    public let usesDPoP: Bool
    /// Whether sign-ins push their authorization request to the provider's PAR endpoint first
    /// (RFC 9126): ``PushedAuthorizationMode/whenAdvertised`` by default, so the browser never
    /// carries the parameters when the provider can take them over the back channel, and a
    /// client the provider holds to PAR (`--require-par`) signs in at all.
    public let pushedAuthorization: PushedAuthorizationMode

    /// An access token this close to expiry is refreshed first, so a call made with it does
    /// not fail in flight.
    static let expiryMargin: TimeInterval = 60

    let http: HTTPClient
    let idTokens: IDTokenVerifier
    let redirects = RedirectSlot()
    let flights = InteractiveFlights()
    let now: @Sendable () -> Date

    /// A manager for `clientID` at `provider`.
    ///
    /// - Parameters:
    ///   - provider: the provider, discovered or a preset.
    ///   - clientID: the app's client id there.
    ///   - redirectURI: the registered redirect URI; nil when only device login is used.
    ///   - store: where the grant lives; by default the Keychain on Apple platforms and a
    ///     `0600` file under `$XDG_CONFIG_HOME/portico-kit` elsewhere.
    ///   - userAgent: how pages are shown; by default ``AutomaticUserAgent``.
    ///   - refreshTimeout: the longest a caller waits for a refresh, and a refresh request's
    ///     own timeout (10 s: well under the provider's 30 s reuse grace, so a retry after a
    ///     lost answer is still taken for one).
    ///   - profileLifetime: how long a cached profile is fresh (one hour).
    ///   - idTokenLeeway: the clock skew allowed when checking ID-token times (60 s).
    ///   - clock: the time the manager goes by (token expiry, ID-token times); the system's by
    ///     default, a fixed one in an app's own tests.
    ///   - usesDPoP: whether to bind tokens with DPoP when the provider supports it (true).
    ///   - pushedAuthorization: whether to push authorization requests (RFC 9126); by default
    ///     when the provider advertises PAR. A confidential client pushes through its backend
    ///     with ``PushedAuthorizationMode/through(_:)``.
    public convenience init(
        provider: Provider, clientID: String, redirectURI: URL? = nil, store: (any TokenStore)? = nil,
        userAgent: (any UserAgent)? = nil, refreshTimeout: TimeInterval = 10, profileLifetime: TimeInterval = 3600,
        idTokenLeeway: TimeInterval = 60, clock: @escaping @Sendable () -> Date = { Date() }, usesDPoP: Bool = true,
        pushedAuthorization: PushedAuthorizationMode = .whenAdvertised
    ) {
        self.init(
            provider: provider, clientID: clientID, redirectURI: redirectURI,
            store: store ?? Self.defaultTokenStore(), userAgent: userAgent ?? AutomaticUserAgent(),
            refreshTimeout: refreshTimeout, profileLifetime: profileLifetime, idTokenLeeway: idTokenLeeway,
            http: .shared, now: clock, usesDPoP: usesDPoP, pushedAuthorization: pushedAuthorization)
    }

    init(
        provider: Provider, clientID: String, redirectURI: URL?, store: any TokenStore, userAgent: any UserAgent,
        refreshTimeout: TimeInterval, profileLifetime: TimeInterval, idTokenLeeway: TimeInterval = 60,
        http: HTTPClient, now: @escaping @Sendable () -> Date, usesDPoP: Bool = true,
        pushedAuthorization: PushedAuthorizationMode = .whenAdvertised
    ) {
        self.usesDPoP = usesDPoP
        self.pushedAuthorization = pushedAuthorization
        self.provider = provider
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.store = store
        self.userAgent = userAgent
        self.refreshTimeout = refreshTimeout
        self.profileLifetime = profileLifetime
        self.idTokenLeeway = idTokenLeeway
        self.http = http
        self.now = now
        idTokens = IDTokenVerifier(provider: provider, clientID: clientID, http: http, leeway: idTokenLeeway, now: now)
    }

    /// The platform's usual place for tokens: the Keychain on Apple platforms, otherwise
    /// `$XDG_CONFIG_HOME/portico-kit` (or `~/.config/portico-kit`).
    public static func defaultTokenStore() -> any TokenStore {
        #if canImport(Security)
            return KeychainTokenStore()
        #else
            let environment = ProcessInfo.processInfo.environment
            let base =
                environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
            return FileTokenStore(directory: base.appendingPathComponent("portico-kit"))
        #endif
    }

    /// The grant's key in the store.
    public var storeKey: TokenStoreKey { TokenStoreKey(provider: provider.identifier, clientID: clientID) }

    /// Signs the person in as `request` asks, or returns the stored grant when the strategy
    /// allows (LWA's `authorize:withHandler:`).
    ///
    /// `.auto` uses a stored grant that covers the scopes (refreshing it silently), else shows
    /// the provider's pages; `.always` shows them; `.never` never does and throws
    /// ``AuthorizationError/Code/authorizationRequired`` instead. With a profile scope, the
    /// result carries the ``User`` too.
    public func authorize(_ request: AuthorizeRequest) async throws(AuthorizationError) -> AuthorizeResult {
        let scopes = request.scopeNames
        guard !scopes.isEmpty else {
            throw AuthorizationError(.invalidInput, "an authorization needs at least one scope")
        }
        try Self.checkReadable(scopes, grantType: request.grantType)
        try Self.checkChallenge(request)
        if request.grantType == .authorizationCode {
            guard request.interactiveStrategy != .never else {
                throw AuthorizationError(.authorizationRequired, "a code for the backend needs the provider's pages")
            }
            return try await interactive(request)
        }
        let grant = try loadGrant()
        switch AuthorizationStrategy.decide(
            request.interactiveStrategy, grant: grant, scopes: scopes, now: now(), margin: Self.expiryMargin)
        {
        case .useStoredGrant:
            if let grant { return await result(from: grant) }
            return try await interactive(request)
        case .refresh:
            do {
                return await result(from: try await refreshedGrant())
            } catch  where error.code == .authorizationRequired && request.interactiveStrategy == .auto {
                return try await interactive(request)
            }
        case .interactive:
            return try await interactive(request)
        case .authorizationRequired:
            throw AuthorizationError(.authorizationRequired, "nobody is signed in with these scopes")
        }
    }

    /// Refuses scopes whose data the app could never read: `email` is released through
    /// userinfo, which needs `openid` (or through the profile, which needs `profile`).
    static func checkReadable(_ scopes: [String], grantType: AuthorizeRequest.GrantType) throws(AuthorizationError) {
        guard grantType == .accessToken, scopes.contains(Scope.email.name) else { return }
        guard scopes.contains(Scope.openID.name) || scopes.contains(Scope.profile.name) else {
            throw AuthorizationError(
                .invalidInput, "the email scope is read through userinfo: ask for .openID (or .profile) with it")
        }
    }

    /// Refuses an app's own PKCE challenge that is not `S256` before any page is shown.
    static func checkChallenge(_ request: AuthorizeRequest) throws(AuthorizationError) {
        guard request.grantType == .authorizationCode, let challenge = request.codeChallenge else { return }
        guard request.codeChallengeMethod == "S256" else {
            throw AuthorizationError(
                .invalidInput, "the code challenge method \(request.codeChallengeMethod) is not accepted; use S256")
        }
        let base64url = challenge.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        }
        guard challenge.utf8.count == 43, base64url else {
            throw AuthorizationError(
                .invalidInput, "the code challenge is not S256 (base64url of a SHA-256 digest, 43 characters)")
        }
    }

    /// Runs the provider's pages through the user agent, then redeems what comes back.
    private func interactive(_ request: AuthorizeRequest) async throws(AuthorizationError) -> AuthorizeResult {
        let epoch = SignOutLedger.shared.epoch(grantKey)
        let pending = PendingAuthorization(request: request)
        let context = AuthorizationContext(
            provider: provider, clientID: clientID, scopes: request.scopes, redirectURI: redirectURI,
            grantType: request.grantType, pending: pending, http: http, redirects: redirects,
            dpopKey: try dpopKeyForNewGrant(), pushedAuthorization: pushedAuthorization)
        let outcome: AuthorizationOutcome
        do {
            let userAgent = userAgent
            outcome = try await flights.run { try await userAgent.authorize(context) }
        } catch {
            if SignOutLedger.shared.epoch(grantKey) != epoch { throw Self.signedOutMeanwhile }
            throw AuthorizationError.wrap(error, as: .invalidResponse, "the sign-in did not complete")
        }
        let tokens: TokenResponse
        // Only the authorization request carries the nonce; device login has none to echo.
        var nonce = pending.nonce
        switch outcome.kind {
        case .callback(let url, let usedRedirectURI):
            let code = try AuthorizationCallback.code(from: url, pending: pending, provider: provider)
            if request.grantType == .authorizationCode {
                return AuthorizeResult(
                    accessToken: nil, expiresAt: nil, grantedScopes: request.scopes, clientID: clientID,
                    redirectURI: usedRedirectURI, user: nil, authorizationCode: code,
                    codeVerifier: pending.codeVerifier, codeChallenge: pending.codeChallenge)
            }
            guard let verifier = pending.codeVerifier else {
                throw AuthorizationError(.invalidInput, "a code challenge of the app's own needs `.authorizationCode`")
            }
            let tokenEndpoint = TokenEndpointClient(http: http, dpopKey: context.dpopKey)
            tokens = try TokenResponse(
                reply: try await tokenEndpoint.post(
                    provider.tokenEndpoint,
                    request.withTokenParameters([
                        ("grant_type", "authorization_code"), ("code", code),
                        ("redirect_uri", usedRedirectURI.absoluteString), ("code_verifier", verifier),
                        ("client_id", clientID),
                    ])))
        case .tokens(let response):
            guard request.grantType == .accessToken else {
                throw AuthorizationError(.invalidInput, "device login yields tokens, not a code for the backend")
            }
            tokens = response
            nonce = nil
        }
        let grant = try await makeGrant(
            from: tokens, requested: pending.scopes, nonce: nonce, maxAge: request.maxAge, previous: nil)
        guard try saveGrant(grant, since: epoch, announcing: .signedIn) else { throw Self.signedOutMeanwhile }
        PorticoKitLog.log(.info, "\(clientID) at \(provider.identifier): signed in")
        return await result(from: grant)
    }

    /// The result for a stored grant, with the user when a profile scope was granted.
    private func result(from grant: StoredGrant) async -> AuthorizeResult {
        var user: User?
        var userError: AuthorizationError?
        if !Set(grant.scopes).isDisjoint(with: Scope.profileScopes.union([Scope.openID.name])) {
            // The sign-in succeeded even if the profile cannot be read right now: say why.
            do { user = try await fetchUser() } catch { userError = error }
        }
        return AuthorizeResult(
            accessToken: grant.accessToken, expiresAt: grant.expiresAt,
            grantedScopes: grant.scopes.map { Scope(name: $0) },
            clientID: clientID, redirectURI: redirectURI, user: user, userError: userError, idToken: grant.idToken)
    }

    /// A grant from a token response: the ID token verified, the refresh token and claims of
    /// `previous` kept when the response brings no new ones.
    func makeGrant(
        from tokens: TokenResponse, requested: [String], nonce: String?, maxAge: TimeInterval? = nil,
        previous: StoredGrant?
    ) async throws(AuthorizationError) -> StoredGrant {
        var claims = previous?.idTokenClaims
        if let idToken = tokens.idToken {
            claims = try await idTokens.verify(
                idToken, .init(nonce: nonce, maxAge: maxAge, subject: previous?.idTokenClaims?["sub"]?.stringValue))
        }
        var grant = StoredGrant(
            accessToken: tokens.accessToken, expiresAt: tokens.expiresIn.map { now().addingTimeInterval($0) },
            refreshToken: tokens.refreshToken ?? previous?.refreshToken, scopes: tokens.scopes ?? requested,
            idTokenClaims: claims, user: previous?.user, userFetchedAt: previous?.userFetchedAt,
            idToken: tokens.idToken ?? previous?.idToken, tokenType: tokens.tokenType)
        // Resource servers' tokens outlive a rotation of the refresh token they came from.
        grant.resourceTokens = previous?.resourceTokens ?? [:]
        return grant
    }

    func loadGrant() throws(AuthorizationError) -> StoredGrant? {
        do { return try store.grant(for: storeKey) } catch {
            throw AuthorizationError.wrap(error, as: .storage, "the token store cannot be read")
        }
    }

    /// The key of this manager's grant among all managers: store, provider and client. Managers
    /// with equal keys share refreshes and sign-outs.
    var grantKey: String { "\(store.coordinationKey)\n\(provider.identifier)\n\(clientID)" }

    /// The error of work that a sign-out overtook.
    static let signedOutMeanwhile = AuthorizationError(.cancelled, "the app signed out during the authorization")

    /// Saves `grant` unless the app signed out since `epoch`; false when it did. With a
    /// `change`, announces it under the same lock as the write, so observers see changes in
    /// the order the store went through them (never a refresh after the sign-out that followed it).
    func saveGrant(
        _ grant: StoredGrant, since epoch: UInt64, announcing change: GrantChange? = nil
    ) throws(AuthorizationError) -> Bool {
        try SignOutLedger.shared.write(grantKey, since: epoch) { () throws(AuthorizationError) in
            try saveGrant(grant)
            if let change { GrantChangeHub.shared.publish(change, for: grantKey) }
        }
    }

    func saveGrant(_ grant: StoredGrant) throws(AuthorizationError) {
        do { try store.save(grant, for: storeKey) } catch {
            throw AuthorizationError.wrap(error, as: .storage, "the token store cannot be written")
        }
    }

    func removeGrant() throws(AuthorizationError) {
        do { try store.removeGrant(for: storeKey) } catch {
            throw AuthorizationError.wrap(error, as: .storage, "the token store cannot be cleared")
        }
    }
}
