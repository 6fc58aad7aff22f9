import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The host app's side of account link: answers a mini-program container's "give me the auth
/// model" (mPaaS's `authModelForMode:extendParams:callback:`), one request at a time.
///
/// ```swift
/// let session = AccountLinkSession(manager: manager) { result, proof in
///     try await backend.link(code: result.authorizationCode!, verifier: result.codeVerifier!,
///                            redirectURI: result.redirectURI!, dpop: proof?.value)  // the AuthModel
/// } unbind: { model in
///     try await backend.unbind()
/// }
/// let model = try await session.authModel(refresh: extendParams.needRefreshToken)
/// let request = try await session.authorizedRequest(URLRequest(url: resource))  // DPoP when bound
/// ```
///
/// Why an actor, and why each rule:
/// - Concurrent callers share the one fetch in flight: two authorizations at once would show the
///   person the platform's page twice, and mPaaS's container expects its requests serialised.
/// - The model is kept in the ``TokenStore`` (beside, never in place of, the manager's grant), so
///   an app restart does not send the person to the platform again. It is served until it
///   expires, or until the caller asks `refresh: true` (mPaaS's `NeedRefreshToken`: the
///   mini-program found the token rejected).
/// - It never waits forever: after ``applicationDidBecomeActive()`` the authorization has a short
///   grace to answer, else the fetch fails with ``AccountLinkError/Code/returnedWithoutActing``;
///   and every fetch has a deadline (``AccountLinkError/Code/timedOut``). mPaaS's own flow waits
///   minutes for a person who went to the platform's app and came back without acting.
/// - ``logout()`` and ``unbind()`` forget the model and end any pending fetch, so a mini-program
///   never keeps the previous person's sign-in after the host switches user.
/// - The mini-program's token is bound to the installation's DPoP key when the provider offers
///   DPoP: the backend only forwards a proof (``AccountLinkProof``), never holds the key, and
///   the mini-program's calls carry proofs (``authorizedRequest(_:retrying:)``).
public actor AccountLinkSession {
    /// Where the model is kept, and under which key.
    public nonisolated let store: any TokenStore
    /// The model's key in ``store``.
    public nonisolated let storeKey: TokenStoreKey
    /// How long an authorization result may lag behind the app becoming active again.
    public nonisolated let returnGrace: Duration
    /// The longest one fetch (authorization and host backend) may take.
    public nonisolated let timeout: Duration

    /// A model this close to expiry is fetched again, so a mini-program's call made with it does
    /// not fail in flight.
    static let expiryMargin: TimeInterval = 60

    private let fetch: @Sendable (AccountLinkProgress) async throws -> AuthModel
    private let unbindAtHost: @Sendable (AuthModel?) async throws -> Void
    private let now: @Sendable () -> Date
    private nonisolated let current = AttemptSlot()
    private nonisolated let activation = ActivationObserver()

    private var inFlight: (id: Int, task: Task<AuthModel, any Error>)?
    private var nextID = 0
    /// Bumped by logout and unbind: a fetch started before never writes its model afterwards.
    private var generation = 0

    /// A session whose fetch runs the host's own closure.
    ///
    /// - Parameters:
    ///   - store: where the model is kept between runs.
    ///   - storeKey: its key there; use ``storeKey(for:)`` for a manager's.
    ///   - returnGrace: how long a result may lag behind the app becoming active (3 s).
    ///   - timeout: the longest one fetch may take (5 minutes).
    ///   - clock: the time expiry is judged by; the system's by default.
    ///   - fetch: the platform's authorization (`grantType: .authorizationCode`), then the host
    ///     backend, which redeems the code, links the account and answers the model. It calls
    ///     ``AccountLinkProgress/authorizationFinished()`` between the two, so that a slow
    ///     backend is not taken for a person who did nothing.
    ///   - unbind: tells the host backend to unbind the person (it calls the provider's
    ///     `DELETE /oauth/account-links/{id}`); given the model forgotten, if there was one.
    public init(
        store: any TokenStore, storeKey: TokenStoreKey, returnGrace: Duration = .seconds(3),
        timeout: Duration = .seconds(300), clock: @escaping @Sendable () -> Date = { Date() },
        fetch: @escaping @Sendable (AccountLinkProgress) async throws -> AuthModel,
        unbind: @escaping @Sendable (AuthModel?) async throws -> Void
    ) {
        self.store = store
        self.storeKey = storeKey
        self.returnGrace = returnGrace
        self.timeout = timeout
        self.now = clock
        self.fetch = fetch
        self.unbindAtHost = unbind
        let current = current
        activation.start { current.attempt?.becameActive() }
    }

    /// A session that authorizes with `manager` (through its user agent: the companion, an
    /// in-app web session or the browser) and keeps the model in the manager's store.
    ///
    /// The host backend gets no proof of the installation's key this way, so the mini-program
    /// token it exchanges is a bearer token; prefer
    /// ``init(manager:scopes:returnGrace:timeout:link:unbind:)``.
    ///
    /// - Parameters:
    ///   - manager: the host app's manager for its own (confidential) client.
    ///   - scopes: what to ask; `account_link` is always added.
    ///   - returnGrace: how long a result may lag behind the app becoming active (3 s).
    ///   - timeout: the longest one fetch may take (5 minutes).
    ///   - redeem: sends code, verifier and redirect URI to the host backend; answers the model.
    ///   - unbind: tells the host backend to unbind the person.
    public init(
        manager: AuthorizationManager, scopes: [Scope] = [.openID, .profile], returnGrace: Duration = .seconds(3),
        timeout: Duration = .seconds(300),
        redeem: @escaping @Sendable (AuthorizeResult) async throws -> AuthModel,
        unbind: @escaping @Sendable (AuthModel?) async throws -> Void
    ) {
        self.init(
            manager: manager, scopes: scopes, returnGrace: returnGrace, timeout: timeout,
            link: { result, _ in try await redeem(result) }, unbind: unbind)
    }

    /// A session that authorizes with `manager` and hands the host backend, with the result, a
    /// DPoP proof of the installation's key for its token exchange, so the mini-program token
    /// in the model is bound to this device (``AccountLinkProof``).
    ///
    /// The proof is nil when the provider does not advertise DPoP or the manager does not use
    /// it (``AuthorizationManager/usesDPoP``): the backend then exchanges without one, and the
    /// model's token is a bearer token as before. When the provider asks for a nonce, `link`
    /// throws ``DPoPNonceRequired`` with it; the session signs a new proof and calls `link`
    /// once more with the same result.
    ///
    /// - Parameters:
    ///   - manager: the host app's manager for its own (confidential) client.
    ///   - scopes: what to ask; `account_link` is always added.
    ///   - returnGrace: how long a result may lag behind the app becoming active (3 s).
    ///   - timeout: the longest one fetch may take (5 minutes).
    ///   - link: sends code, verifier, redirect URI and the proof (its ``AccountLinkProof/value``)
    ///     to the host backend, which forwards the proof as the `DPoP` header of its exchange;
    ///     answers the model, with the token type the provider issued.
    ///   - unbind: tells the host backend to unbind the person.
    public init(
        manager: AuthorizationManager, scopes: [Scope] = [.openID, .profile], returnGrace: Duration = .seconds(3),
        timeout: Duration = .seconds(300),
        link: @escaping @Sendable (AuthorizeResult, AccountLinkProof?) async throws -> AuthModel,
        unbind: @escaping @Sendable (AuthModel?) async throws -> Void
    ) {
        let request = AuthorizeRequest(
            scopes: scopes.contains(.accountLink) ? scopes : scopes + [.accountLink], grantType: .authorizationCode)
        self.init(
            store: manager.store, storeKey: Self.storeKey(for: manager), returnGrace: returnGrace, timeout: timeout,
            clock: manager.now,
            fetch: { progress in
                let result: AuthorizeResult
                do { result = try await manager.authorize(request) } catch {
                    throw AccountLinkError.authorization(error)
                }
                progress.authorizationFinished()
                return try await Self.linked(result, manager: manager, link: link)
            }, unbind: unbind)
    }

    /// Runs the host's `link` with a fresh proof, and once more with the provider's nonce when
    /// the backend hands one back.
    private static func linked(
        _ result: AuthorizeResult, manager: AuthorizationManager,
        link: @Sendable (AuthorizeResult, AccountLinkProof?) async throws -> AuthModel
    ) async throws -> AuthModel {
        let proof = try signedProof(of: manager)
        do { return try await link(result, proof) } catch let wanted as DPoPNonceRequired where proof != nil {
            DPoPNonceBook.remember(wanted.nonce, from: manager.provider.tokenEndpoint)
        } catch {
            throw AccountLinkError.hostBackend(error, "the host backend did not answer the model")
        }
        let retry = try signedProof(of: manager)
        do { return try await link(result, retry) } catch {
            throw AccountLinkError.hostBackend(error, "the host backend did not answer the model")
        }
    }

    /// A fresh proof of `manager`'s installation key for the token endpoint, or nil (bearer).
    private static func signedProof(of manager: AuthorizationManager) throws(AccountLinkError) -> AccountLinkProof? {
        do { return try manager.accountLinkProof() } catch {
            throw AccountLinkError(.storage, "the DPoP key cannot sign a proof", underlyingError: error)
        }
    }

    /// The key a session of `manager` keeps its model under: the manager's provider, and its
    /// client id with a suffix, so the model never overwrites the manager's own grant.
    public static func storeKey(for manager: AuthorizationManager) -> TokenStoreKey {
        TokenStoreKey(provider: manager.provider.identifier, clientID: manager.clientID + "#account-link")
    }

    /// The auth model for the container: the cached one while it is fresh, else a new fetch.
    ///
    /// - Parameter refresh: true when the container says `NeedRefreshToken`: the cached model is
    ///   not used, and the person is sent to the platform again.
    public func authModel(refresh: Bool = false) async throws(AccountLinkError) -> AuthModel {
        if let running = inFlight { return try await Self.value(of: running.task) }
        if !refresh, let cached = try cachedModel(), cached.isFresh(at: now(), margin: Self.expiryMargin) {
            return cached
        }
        nextID += 1
        let id = nextID
        let epoch = generation
        let attempt = AccountLinkAttempt(grace: returnGrace)
        current.attempt = attempt
        attempt.start(deadline: timeout, fetch: fetch)
        let task = Task<AuthModel, any Error> {
            let result: Result<AuthModel, any Error>
            do { result = .success(try await attempt.wait()) } catch { result = .failure(error) }
            return try self.finished(id: id, attempt: attempt, epoch: epoch, result)
        }
        inFlight = (id, task)
        return try await Self.value(of: task)
    }

    /// `request` with the model's token, for a mini-program's call to a resource server:
    /// `Authorization: DPoP <token>` and a `DPoP` proof of the installation's key (with `ath`)
    /// when the token is bound to it, else `Authorization: Bearer <token>` (a model cached
    /// before DPoP, or from a provider without it).
    ///
    /// The model is the cached one while fresh, else fetched as ``authModel(refresh:)`` does. A
    /// proof names one request at one moment: call this for every attempt, just before sending
    /// it. A server that wants its own nonce answers 401 with `WWW-Authenticate: DPoP
    /// error="use_dpop_nonce"` and a `DPoP-Nonce` header: pass that answer as `refusal` and send
    /// the new request once more, as with ``AuthorizationManager/authorizedRequest(_:retrying:)``.
    ///
    /// - Parameters:
    ///   - request: the request, method and URL final.
    ///   - refusal: the server's answer to the previous attempt; nil for a first attempt.
    public func authorizedRequest(
        _ request: URLRequest, retrying refusal: HTTPURLResponse? = nil
    ) async throws(AccountLinkError) -> URLRequest {
        guard let url = request.url else { throw AccountLinkError(.invalidInput, "the request has no URL") }
        if let nonce = refusal?.value(forHTTPHeaderField: "DPoP-Nonce") { DPoPNonceBook.remember(nonce, from: url) }
        let model = try await authModel()
        var request = request
        guard model.isDPoPBound else {
            request.setValue("Bearer \(model.accessToken)", forHTTPHeaderField: "Authorization")
            return request
        }
        let proof: String
        do {
            proof = try DPoPProofBuilder.proof(
                key: try store.dpopKey(), method: request.httpMethod ?? "GET", url: url,
                nonce: DPoPNonceBook.nonce(for: url), accessToken: model.accessToken, now: now())
        } catch {
            throw AccountLinkError(.storage, "the DPoP key cannot sign a proof", underlyingError: error)
        }
        request.setValue("DPoP \(model.accessToken)", forHTTPHeaderField: "Authorization")
        request.setValue(proof, forHTTPHeaderField: "DPoP")
        return request
    }

    /// The model in the store, if any (nil after logout); never fetches.
    public func cachedModel() throws(AccountLinkError) -> AuthModel? {
        let grant: StoredGrant?
        do { grant = try store.grant(for: storeKey) } catch {
            throw AccountLinkError(.storage, "the token store cannot be read", underlyingError: error)
        }
        return grant.flatMap(AuthModel.init(storedGrant:))
    }

    /// Tells the session the app is in front again (UIKit apps get this wired for them). A
    /// pending authorization that does not answer within ``returnGrace`` then fails with
    /// ``AccountLinkError/Code/returnedWithoutActing``.
    public nonisolated func applicationDidBecomeActive() {
        current.attempt?.becameActive()
    }

    /// The host's user signed out or switched: forgets the model and ends any pending fetch with
    /// ``AccountLinkError/Code/cancelled``. The link at the platform stays; the next
    /// ``authModel(refresh:)`` authorizes again.
    public func logout() throws(AccountLinkError) {
        _ = try forget("the host app logged out")
    }

    /// The person unbinds their platform account: forgets everything as ``logout()`` does, then
    /// tells the host backend, which unbinds at the provider (revoking the person's grant to the
    /// host and every mini-program token from it).
    ///
    /// The local state is cleared first, so no mini-program is served meanwhile; when the host
    /// backend cannot be told, this throws ``AccountLinkError/Code/hostBackend`` and the app may
    /// call it again.
    public func unbind() async throws(AccountLinkError) {
        let model = try forget("the account was unbound")
        do { try await unbindAtHost(model) } catch {
            throw AccountLinkError.hostBackend(error, "the host backend could not unbind the account")
        }
    }

    /// Ends the fetch in flight, bumps the generation and removes the model; the model it held.
    private func forget(_ reason: String) throws(AccountLinkError) -> AuthModel? {
        generation += 1
        current.take()?.cancel(AccountLinkError(.cancelled, reason))
        inFlight = nil
        let model = try? cachedModel()
        do { try store.removeGrant(for: storeKey) } catch {
            throw AccountLinkError(.storage, "the token store cannot be cleared", underlyingError: error)
        }
        return model ?? nil
    }

    /// Stores a fetched model unless a logout came in between, and clears the flight.
    private func finished(
        id: Int, attempt: AccountLinkAttempt, epoch: Int, _ result: Result<AuthModel, any Error>
    ) throws -> AuthModel {
        if inFlight?.id == id { inFlight = nil }
        current.remove(attempt)
        let model = try result.get()
        guard epoch == generation else {
            throw AccountLinkError(.cancelled, "the host app logged out while the model was fetched")
        }
        do { try store.save(model.storedGrant, for: storeKey) } catch {
            throw AccountLinkError(.storage, "the token store cannot be written", underlyingError: error)
        }
        return model
    }

    /// The shared fetch's model; a caller that is cancelled stops waiting at once (the fetch
    /// goes on for the others).
    private static func value(of task: Task<AuthModel, any Error>) async throws(AccountLinkError) -> AuthModel {
        do { return try await joinedValue(of: task) } catch let error as AccountLinkError { throw error } catch {
            throw AccountLinkError(.cancelled, "the request was cancelled", underlyingError: error)
        }
    }
}

/// The session's attempt in flight, reachable without the actor so that an activation
/// notification can reach it synchronously.
private final class AttemptSlot: Sendable {
    private let slot = LockedState<AccountLinkAttempt?>(nil)

    var attempt: AccountLinkAttempt? {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }

    func take() -> AccountLinkAttempt? {
        slot.withLock { current in
            defer { current = nil }
            return current
        }
    }

    func remove(_ old: AccountLinkAttempt) {
        slot.withLock { if $0 === old { $0 = nil } }
    }
}
