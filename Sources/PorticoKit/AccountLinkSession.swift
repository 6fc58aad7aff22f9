import Foundation

/// The host app's side of account link: answers a mini-program container's "give me the auth
/// model" (mPaaS's `authModelForMode:extendParams:callback:`), one request at a time.
///
/// ```swift
/// let session = AccountLinkSession(manager: manager) { result in
///     try await backend.link(code: result.authorizationCode!, verifier: result.codeVerifier!,
///                            redirectURI: result.redirectURI!)          // answers the AuthModel
/// } unbind: { model in
///     try await backend.unbind()
/// }
/// let model = try await session.authModel(refresh: extendParams.needRefreshToken)
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
                do { return try await redeem(result) } catch {
                    throw AccountLinkError.hostBackend(error, "the host backend did not answer the model")
                }
            }, unbind: unbind)
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
