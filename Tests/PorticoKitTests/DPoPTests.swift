import Foundation
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// DPoP in the SDK (RFC 9449) against a real provider: tokens bound to the installation's key
/// at sign-in and refresh, proofs at the profile, userinfo and ``AuthorizationManager/authorizedRequest(_:retrying:)``,
/// the key kept in a `0600` file, and the server's nonces asked for and retried once.
@Suite(.serialized)
struct DPoPTests {
    /// A public app registered with `--dpop`: its tokens are never accepted as bearer tokens.
    private func dpopClient(_ harness: KitHarness) throws -> Client {
        var client = try harness.addPublicClient()
        client.requiresDPoP = true
        try harness.store.transaction { try $0.update(client) }
        return client
    }

    /// Signs `person` in through the loopback flow and returns the manager.
    private func signedIn(
        _ harness: KitHarness, _ person: UserRecord, client: Client, store: any TokenStore = InMemoryTokenStore(),
        usesDPoP: Bool = true
    ) async throws -> AuthorizationManager {
        let robot = SignInRobot(email: person.email, password: harness.password)
        let manager = try await harness.manager(
            for: client, store: store, userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener),
            usesDPoP: usesDPoP)
        _ = try await manager.authorize(AuthorizeRequest(scopes: [.openID, .profile]))
        return manager
    }

    /// The thumbprint introspection reports as the token's `cnf.jkt`, or nil for an unbound token.
    private func boundKey(of accessToken: String, _ harness: KitHarness, _ resourceServer: Client) async throws
        -> String?
    {
        let reply = try await harness.post(
            "oauth/introspect", [("token", accessToken), ("client_id", resourceServer.id), ("client_secret", "secret")])
        #expect(reply.json["active"]?.boolValue == true)
        return reply.json["cnf"]?.objectValue?["jkt"]?.stringValue
    }

    /// Makes the stored access token look expired, so the next use refreshes.
    private func expire(_ manager: AuthorizationManager) throws {
        var grant = try #require(try manager.store.grant(for: manager.storeKey))
        grant.expiresAt = Date().addingTimeInterval(-10)
        try manager.store.save(grant, for: manager.storeKey)
    }

    /// A GET of userinfo through ``AuthorizationManager/authorizedRequest(_:retrying:)``.
    private func userInfo(_ harness: KitHarness, _ manager: AuthorizationManager, retrying: HTTPURLResponse? = nil)
        async throws -> HTTPReply
    {
        let request = URLRequest(url: harness.issuer.appendingPathComponent("oauth/userinfo"))
        return try await HTTPClient.shared.send(try await manager.authorizedRequest(request, retrying: retrying))
    }

    @Test func signInBindsTheTokensToTheInstallationKey() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let resourceServer = try harness.addResourceServer()
            let manager = try await signedIn(harness, person, client: try dpopClient(harness))
            #expect(manager.provider.supportsDPoP)
            let grant = try #require(try manager.store.grant(for: manager.storeKey))
            #expect(grant.tokenType == "DPoP")
            let thumbprint = try manager.store.dpopKey().thumbprint
            #expect(try await boundKey(of: grant.accessToken, harness, resourceServer) == thumbprint)

            // The profile (`/user/profile`) and userinfo take the token only with a proof.
            #expect(try await manager.fetchUser().userID == person.id)
            var post = URLRequest(url: try #require(URL(string: "\(harness.issuer)/oauth/userinfo?page=2#top")))
            post.httpMethod = "post"
            let request = try await manager.authorizedRequest(post)
            #expect(request.value(forHTTPHeaderField: "Authorization") == "DPoP \(grant.accessToken)")
            // The proof: its header carries the public key only, its claims name this request.
            let parts = try #require(request.value(forHTTPHeaderField: "DPoP")).split(separator: ".").map(String.init)
            #expect(parts.count == 3)
            let header = try #require(
                Base64URLCoding.decode(parts[0]).flatMap { ProfileValue(parsing: $0)?.objectValue })
            #expect(header["typ"]?.stringValue == "dpop+jwt" && header["alg"]?.stringValue == "ES256")
            #expect(header["jwk"]?.objectValue.map { Set($0.keys) } == ["kty", "crv", "x", "y"])
            let claims = try #require(
                Base64URLCoding.decode(parts[1]).flatMap { ProfileValue(parsing: $0)?.objectValue })
            #expect(claims["htm"]?.stringValue == "POST")
            #expect(claims["htu"]?.stringValue == "\(harness.issuer)/oauth/userinfo")
            #expect(
                claims["ath"]?.stringValue
                    == Base64URLCoding.encode(PlatformCrypto.sha256(Array(grant.accessToken.utf8))))
            #expect(claims["jti"]?.stringValue?.isEmpty == false && claims["iat"] != nil)
            let reply = try await userInfo(harness, manager)
            #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
            #expect(reply.jsonObject?["sub"]?.stringValue == person.id)
        }
    }

    @Test func turningDPoPOffKeepsBearerTokens() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let resourceServer = try harness.addResourceServer()
            let manager = try await signedIn(harness, person, client: try harness.addPublicClient(), usesDPoP: false)
            let grant = try #require(try manager.store.grant(for: manager.storeKey))
            #expect(grant.tokenType == "Bearer")
            #expect(try await boundKey(of: grant.accessToken, harness, resourceServer) == nil)
            let reply = try await userInfo(harness, manager)
            #expect(reply.status == 200)
            let request = try await manager.authorizedRequest(URLRequest(url: harness.issuer))
            #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer \(grant.accessToken)")
            #expect(request.value(forHTTPHeaderField: "DPoP") == nil)
        }
    }

    @Test func refreshBindsAgainAndAStolenRefreshTokenIsUseless() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let resourceServer = try harness.addResourceServer()
            let client = try dpopClient(harness)
            let manager = try await signedIn(harness, person, client: client)
            let first = try #require(try manager.store.grant(for: manager.storeKey))
            let refreshToken = try #require(first.refreshToken)

            // Someone who copied the refresh token, without the key or with another one.
            let bare = try await harness.post(
                "oauth/token",
                [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", client.id)])
            #expect(bare.status == 400)
            let thief = try DPoPProver()
            let stolen = try await harness.provider.token(
                [("grant_type", "refresh_token"), ("refresh_token", refreshToken)], client: .id(client.id),
                proof: thief.proof("POST", harness.provider.issuer + "/oauth/token"))
            #expect(stolen.status == 400, "\(stolen.text)")
            #expect(stolen.string("access_token") == nil)

            // The app itself refreshes with its key, and the new tokens are bound to it again.
            try expire(manager)
            let token = try await manager.validAccessToken()
            #expect(token != first.accessToken)
            let second = try #require(try manager.store.grant(for: manager.storeKey))
            #expect(second.tokenType == "DPoP")
            #expect(try harness.oneRotation(from: first.refreshToken, to: second.refreshToken))
            #expect(try await boundKey(of: token, harness, resourceServer) == (try manager.store.dpopKey().thumbprint))
            #expect(try await userInfo(harness, manager).status == 200)
        }
    }

    @Test func theKeyLivesInAPrivateFileBesideTheGrants() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let resourceServer = try harness.addResourceServer()
            let client = try dpopClient(harness)
            let directory = harness.directory.appendingPathComponent("kit-\(UUID().uuidString)")
            let firstStore = FileTokenStore(directory: directory)
            _ = try await signedIn(harness, person, client: client, store: firstStore)
            let thumbprint = try firstStore.dpopKey().thumbprint

            var status = stat()
            #expect(stat(firstStore.dpopKeyFileURL.path, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o600)

            // The next launch: a new store on the same directory, a new manager.
            let nextStore = FileTokenStore(directory: directory)
            #expect(try nextStore.dpopKey().thumbprint == thumbprint)
            let next = try await harness.manager(
                for: client, store: nextStore, userAgent: SystemBrowserUserAgent(timeout: .seconds(5)))
            try expire(next)
            let token = try await next.validAccessToken()
            #expect(try await boundKey(of: token, harness, resourceServer) == thumbprint)
            #expect(try await next.fetchUser().userID == person.id)
        }
    }

    @Test func aNonceTheServerAsksForIsSentOnTheRetry() async throws {
        try await KitHarness.with(configuration: .testing { $0.requiresDPoPNonce = true }) { harness in
            let person = try harness.addUser()
            let client = try dpopClient(harness)
            // The sign-in's code exchange is asked for a nonce, then passes.
            let manager = try await signedIn(harness, person, client: client)
            #expect(try manager.store.grant(for: manager.storeKey)?.tokenType == "DPoP")

            // A nonce gone stale: the refresh is refused once, then retried with the new one.
            DPoPNonceBook.remember("stale", from: harness.issuer)
            try expire(manager)
            _ = try await manager.forceRefresh()
            #expect(DPoPNonceBook.nonce(for: harness.issuer) != "stale")

            // The same at the profile.
            DPoPNonceBook.remember("stale", from: harness.issuer)
            let grant = try #require(try manager.store.grant(for: manager.storeKey))
            var outdated = grant
            outdated.userFetchedAt = nil
            try manager.store.save(outdated, for: manager.storeKey)
            #expect(try await manager.fetchUser().userID == person.id)

            // An app's own request: refused with the stale nonce, then retried with the answer.
            DPoPNonceBook.remember("stale", from: harness.issuer)
            let refused = try await userInfo(harness, manager)
            #expect(refused.status == 401)
            #expect(refused.header("WWW-Authenticate")?.contains("use_dpop_nonce") == true)
            let answer = try #require(
                HTTPURLResponse(
                    url: harness.issuer, statusCode: refused.status, httpVersion: nil, headerFields: refused.headers))
            DPoPNonceBook.remember("stale", from: harness.issuer)
            let retried = try await userInfo(harness, manager, retrying: answer)
            #expect(retried.status == 200, "\(String(decoding: retried.body, as: UTF8.self))")
        }
    }
    /// The companion's calls carry its DPoP-bound token with a proof, and a nonce the server
    /// asks for at the companion endpoint is picked up and sent on the broker's retry.
    @Test func theCompanionBrokerSendsProofsAndRetriesForANonce() async throws {
        try await KitHarness.with(configuration: .testing { $0.requiresDPoPNonce = true }) { harness in
            let person = try harness.addUser()
            let companionID = try CompanionEndToEndTests.registerCompanion(harness)
            let companion = try #require(try harness.store.transaction { try $0.client(id: companionID) })
            let app = try harness.addPublicClient()
            let robot = SignInRobot(email: person.email, password: harness.password)
            let manager = try await harness.manager(
                for: companion, userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener))
            _ = try await manager.authorize(AuthorizeRequest(scopes: [.openID, .profile, Scope(name: "companion")]))
            #expect(try manager.store.grant(for: manager.storeKey)?.tokenType == "DPoP")

            var request = CompanionRequest(.authorize)
            request.clientID = app.id
            request.redirectURI = app.redirectURIs[0]
            request.scope = "openid profile"
            request.state = "app-state"
            request.codeChallenge = String(repeating: "a", count: 43)
            let broker = CompanionBroker(provider: manager.provider)
            // A stale nonce: the companion endpoint answers use_dpop_nonce, the broker retries.
            DPoPNonceBook.remember("stale", from: harness.issuer)
            let answer = try await broker.authorize(request) { try await manager.authorizedRequest($0) }
            guard case .consentRequired(let consent) = answer else {
                Issue.record("expected a consent ticket, got \(answer)")
                return
            }
            #expect(consent.clientID == app.id)
            #expect(DPoPNonceBook.nonce(for: harness.issuer) != "stale")
            // As a bearer token, the bound token is refused.
            let token = try await manager.validAccessToken()
            await #expect(throws: AuthorizationError.self) { try await broker.authorize(request, accessToken: token) }
        }
    }
}
