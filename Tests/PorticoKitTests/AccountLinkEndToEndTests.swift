import Foundation
import PorticoCrypto
import PorticoHostBackend
import PorticoServer
import PorticoStore
import PorticoTesting
import Synchronization
import Testing

@testable import PorticoKit

/// `AccountLinkSession` against a real provider and the example host backend, the platform's
/// pages walked by a robot through the system-browser user agent.
@Suite("Account link end to end") struct AccountLinkEndToEndTests {
    @Test("link: the backend redeems and links; the model is cached, also across an app restart")
    func linkAndCache() async throws {
        try await AccountLinkWorld.with { world in
            let app = try await world.hostApp()
            let store = FileTokenStore(directory: world.provider.directory.appendingPathComponent("app-tokens"))
            let manager = try await world.manager(opener: world.robot().opener, store: store)
            let fetches = Counter()
            let session = world.session(manager, app: app, fetches: fetches)

            let model = try await session.authModel()
            #expect(model.uid == world.person.id)
            let hostUser = try #require(world.currentBackend.users.users.first)
            #expect(model.hostUserID == hostUser.hostUserID)
            #expect(hostUser.link?.platformUserID == world.person.id)
            // The link exists at the provider.
            let found = try await world.provider.request(
                "GET", "/oauth/account-links?host_user_id=\(hostUser.hostUserID)",
                client: .basic(id: world.host.id, secret: AccountLinkWorld.hostSecret))
            #expect(found.status == 200, "\(found.text)")

            #expect(try await session.authModel() == model)
            #expect(fetches.value == 1)
            // The app restarts: a new session over the same store answers without fetching.
            let restarted = world.session(manager, app: app, fetches: fetches)
            #expect(try await restarted.authModel() == model)
            #expect(fetches.value == 1)
        }
    }

    @Test("ten concurrent requests share one fetch; refresh: true fetches again")
    func concurrentAndRefresh() async throws {
        try await AccountLinkWorld.with { world in
            let app = try await world.hostApp()
            let robot = world.robot()
            let manager = try await world.manager(opener: robot.opener)
            let fetches = Counter()
            let session = world.session(manager, app: app, fetches: fetches)
            let models = try await withThrowingTaskGroup(of: AuthModel.self) { group in
                for _ in 0..<10 { group.addTask { try await session.authModel() } }
                return try await group.reduce(into: [AuthModel]()) { $0.append($1) }
            }
            #expect(models.count == 10)
            #expect(Set(models).count == 1)
            #expect(fetches.value == 1)

            let refreshed = try await session.authModel(refresh: true)
            #expect(fetches.value == 2)
            #expect(refreshed.accessToken != models[0].accessToken)
            #expect(refreshed.uid == models[0].uid)
            #expect(try await session.authModel() == refreshed)
        }
    }

    @Test("an expired model is fetched again")
    func expiredModelIsFetchedAgain() async throws {
        try await AccountLinkWorld.with { world in
            let app = try await world.hostApp()
            let offset = Mutex<TimeInterval>(0)
            let manager = try await world.manager(
                opener: world.robot().opener, clock: { Date().addingTimeInterval(offset.withLock { $0 }) })
            let fetches = Counter()
            let session = world.session(manager, app: app, fetches: fetches)
            let first = try await session.authModel()
            #expect(first.expiresAt != nil)
            offset.withLock { $0 = 2 * 3600 }
            let second = try await session.authModel()
            #expect(fetches.value == 2)
            #expect(second.accessToken != first.accessToken)
        }
    }

    // Without the return grace only the session's deadline (30 s) would end this, as timedOut.
    @Test("a person who comes back without acting gets returnedWithoutActing, not a hang")
    func returnedWithoutActing() async throws {
        try await AccountLinkWorld.with { world in
            let app = try await world.hostApp()
            let opened = Signal()
            let manager = try await world.manager(opener: onlookerOpener(opened: opened), browserTimeout: .seconds(60))
            let session = world.session(manager, app: app, returnGrace: .milliseconds(300), timeout: .seconds(30))
            let request = Task { try await session.authModel() }
            await opened.wait()
            session.applicationDidBecomeActive()
            let error = await #expect(throws: AccountLinkError.self) { _ = try await request.value }
            #expect(error?.code == .returnedWithoutActing)
            #expect(try await session.cachedModel() == nil)
        }
    }

    // Without the session's deadline, the browser's own (30 s) would end this: told apart by
    // the browser's error riding along.
    @Test("a person who never comes back: timed out at the deadline")
    func deadline() async throws {
        try await AccountLinkWorld.with { world in
            let app = try await world.hostApp()
            let opened = Signal()
            let manager = try await world.manager(opener: onlookerOpener(opened: opened), browserTimeout: .seconds(30))
            let session = world.session(manager, app: app, timeout: .seconds(1))
            let error = await #expect(throws: AccountLinkError.self) { _ = try await session.authModel() }
            #expect(error?.code == .timedOut)
            #expect(error?.authorizationError == nil)
        }
    }

    @Test("a result that arrives after the app became active is still accepted while the caller waits")
    func lateResultIsAccepted() async throws {
        try await AccountLinkWorld.with { world in
            let app = try await world.hostApp()
            let robot = world.robot()
            let opened = Signal()
            let proceed = Signal()
            let opener = BrowserOpener { url in
                opened.fire()
                Task {
                    await proceed.wait()
                    try? await robot.signIn(at: url)
                }
            }
            let manager = try await world.manager(opener: opener)
            let session = world.session(manager, app: app, returnGrace: .seconds(60))
            let request = Task { try await session.authModel() }
            await opened.wait()
            session.applicationDidBecomeActive()
            proceed.fire()
            #expect(try await request.value.uid == world.person.id)
        }
    }

    // Without logout's cancel, only the browser's deadline (30 s) would end the pending request.
    @Test("logout clears the model and ends a pending request; the next request authorizes again")
    func logoutClears() async throws {
        try await AccountLinkWorld.with { world in
            let app = try await world.hostApp()
            let manager = try await world.manager(opener: world.robot().opener)
            let fetches = Counter()
            let session = world.session(manager, app: app, fetches: fetches)
            _ = try await session.authModel()
            try await session.logout()
            #expect(try await session.cachedModel() == nil)
            #expect(try manager.store.grant(for: session.storeKey) == nil)
            _ = try await session.authModel()
            #expect(fetches.value == 2)

            // A request pending at logout ends with cancelled, and nothing is cached after.
            let opened = Signal()
            let pendingManager = try await world.manager(
                opener: onlookerOpener(opened: opened), browserTimeout: .seconds(30))
            let pendingSession = world.session(pendingManager, app: app)
            let request = Task { try await pendingSession.authModel() }
            await opened.wait()
            try await pendingSession.logout()
            let error = await #expect(throws: AccountLinkError.self) { _ = try await request.value }
            #expect(error?.code == .cancelled)
            #expect(try await pendingSession.cachedModel() == nil)
        }
    }

    @Test("a mini-program reads the profile with its own delegated token")
    func miniProgramProfile() async throws {
        try await AccountLinkWorld.with { world in
            let app = try await world.hostApp()
            let session = world.session(try await world.manager(opener: world.robot().opener), app: app)
            _ = try await session.authModel()
            let exchanged = try await app.miniProgramToken(world.miniProgram.id)
            #expect(exchanged.status == 200, "\(exchanged.json)")
            let token = try #require(exchanged.json["access_token"] as? String)
            let profile = try await world.provider.resource("/user/profile", token: token)
            #expect(profile.status == 200)
            #expect(profile.string("name") == "Mei Host")
        }
    }

    @Test("unbind revokes at the provider and the host backend receives the logout token")
    func unbindRevokesAndTellsTheBackend() async throws {
        try await AccountLinkWorld.with { world in
            let app = try await world.hostApp()
            let session = world.session(try await world.manager(opener: world.robot().opener), app: app)
            let model = try await session.authModel()
            let mini = try #require(
                try await app.miniProgramToken(world.miniProgram.id).json["access_token"] as? String)

            try await session.unbind()
            #expect(try await session.cachedModel() == nil)
            let logouts = try await world.logoutTokens(atLeast: 1)
            #expect(logouts.contains { $0.subject == model.uid })
            // Revoked: the link, the host's token, and the mini-program's token from it.
            let found = try await world.provider.request(
                "GET", "/oauth/account-links?host_user_id=\(model.hostUserID)",
                client: .basic(id: world.host.id, secret: AccountLinkWorld.hostSecret))
            #expect(found.status == 404)
            #expect(try await world.provider.resource("/user/profile", token: model.accessToken).status == 401)
            #expect(try await world.provider.resource("/user/profile", token: mini).status == 401)
        }
    }

    @Test(
        "a host backend down at unbind time still receives the logout token when back, also across a provider restart")
    func backendDownAtUnbind() async throws {
        for restartProvider in [false, true] {
            try await AccountLinkWorld.with { world in
                let app = try await world.hostApp()
                let session = world.session(try await world.manager(opener: world.robot().opener), app: app)
                let model = try await session.authModel()
                let hostUser = try #require(world.currentBackend.users.user(model.hostUserID)?.link)
                try await session.logout()
                world.stopBackend()
                // The person unbinds while the backend is down (the host's DELETE, as Your Account does).
                let unbound = try await world.provider.request(
                    "DELETE", "/oauth/account-links/\(hostUser.linkID)",
                    client: .basic(id: world.host.id, secret: AccountLinkWorld.hostSecret))
                #expect(unbound.status == 204, "\(unbound.text)")
                try await waitForFailedDelivery(world)
                if restartProvider { try await world.provider.restart() }
                try world.restartBackend()
                let logouts = try await world.logoutTokens(atLeast: 1)
                #expect(logouts.contains { $0.subject == model.uid })
                #expect(world.currentBackend.users.user(model.hostUserID)?.link?.accessToken == nil)
            }
        }
    }

    /// Waits until the provider has tried and failed to deliver a logout token at least once.
    private func waitForFailedDelivery(_ world: AccountLinkWorld) async throws {
        for _ in 0..<300 {
            let messages = try world.provider.store.read {
                try $0.pendingOutboxMessages(topic: "backchannel_logout", limit: 10)
            }
            if messages.contains(where: { $0.failedAttempts > 0 }) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessFailure("no failed delivery attempt was recorded")
    }
}

/// The host backend's back-channel logout endpoint: tokens signed with the provider's own key,
/// each with one defect, so only the check under test can refuse it.
@Suite("Host backend logout tokens") struct HostBackendLogoutTokenTests {
    private func logoutClaims(_ world: AccountLinkWorld) -> JWTClaims {
        let now = Date()
        return JWTClaims(
            issuer: world.provider.issuer, subject: world.person.id, audience: [world.host.id],
            expiresAt: now.addingTimeInterval(120), issuedAt: now, jwtID: UUID().uuidString,
            additionalClaims: ["events": .object([LogoutTokenVerifier.event: .object([:])])])
    }

    private func post(_ token: String, to world: AccountLinkWorld) async throws -> Int {
        try await HostAppClient(base: world.backendURL).send(
            "POST", "backchannel-logout", form: [("logout_token", token)]
        )
        .status
    }

    @Test("a logout token signed PS256 (a host registered --id-token-alg PS256 gets those) is accepted")
    func acceptsPS256() async throws {
        try await AccountLinkWorld.with { world in
            let good = logoutClaims(world)
            let accepted = try await post(
                try world.provider.signed(good, type: "logout+jwt", algorithm: .ps256), to: world)
            #expect(accepted == 200)
            #expect(world.currentBackend.users.logouts.map(\.jwtID) == [good.jwtID])
        }
    }

    @Test("a logout token is accepted; one defect each, and it is refused with 400")
    func checksEveryPart() async throws {
        try await AccountLinkWorld.with { world in
            let good = logoutClaims(world)
            let token = try world.provider.signed(good, type: "logout+jwt")
            let accepted = try await post(token, to: world)
            #expect(accepted == 200)
            #expect(world.currentBackend.users.logouts.map(\.jwtID) == [good.jwtID])

            var defects: [(String, JWTClaims, String)] = []
            var claims = logoutClaims(world)
            defects.append(("typ JWT", claims, "JWT"))
            claims["nonce"] = "n-1"
            defects.append(("a nonce", claims, "logout+jwt"))
            claims = logoutClaims(world)
            claims["events"] = nil
            defects.append(("no events", claims, "logout+jwt"))
            claims = logoutClaims(world)
            claims.audience = ["another-client"]
            defects.append(("another audience", claims, "logout+jwt"))
            claims = logoutClaims(world)
            claims.issuer = "https://elsewhere.example"
            defects.append(("another issuer", claims, "logout+jwt"))
            claims = logoutClaims(world)
            claims.jwtID = nil
            defects.append(("no jti", claims, "logout+jwt"))
            claims = logoutClaims(world)
            claims.subject = nil
            defects.append(("neither sub nor sid", claims, "logout+jwt"))
            claims = logoutClaims(world)
            claims.expiresAt = Date().addingTimeInterval(-600)
            defects.append(("expired", claims, "logout+jwt"))
            for (name, claims, type) in defects {
                let token = try world.provider.signed(claims, type: type)
                let status = try await post(token, to: world)
                #expect(status == 400, "\(name)")
            }
            for garbage in ["not.a.jwt", ""] {
                let status = try await post(garbage, to: world)
                #expect(status == 400)
            }
            #expect(world.currentBackend.users.logouts.count == 1)
        }
    }
}

extension ProviderHarness {
    /// `claims` signed with the provider's current `algorithm` key, `typ` set to `type`.
    func signed(_ claims: JWTClaims, type: String, algorithm: SignatureAlgorithm = .rs256) throws -> String {
        let stored = try #require(try store.read { try $0.currentSigningKey(algorithm: algorithm.rawValue) })
        let encryption = try SigningKeyEncryption.load(keyFile: nil, store: store)
        let key = try PorticoCrypto.SigningKey(
            pem: try encryption.privateKeyPEM(of: stored), keyID: stored.id, algorithm: algorithm)
        return JWS.sign(claims: claims, key: key, type: type)
    }
}
