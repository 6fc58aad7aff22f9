import Foundation
import PorticoServer
import PorticoStore
import PorticoTesting
import Synchronization
import Testing

@testable import PorticoKit

/// Pushed authorization requests in the SDK (RFC 9126) against a real provider: a client the
/// provider holds to PAR signs in through the loopback flow, the browser carries only
/// `client_id` and `request_uri`, a DPoP proof at the push binds the code and the tokens to the
/// installation's key, a refused push surfaces the provider's words, and a nonce asked for at
/// the push is sent on the retry.
@Suite(.serialized)
struct PushedSignInTests {
    /// A public app registered with `--require-par` (and `--dpop` when asked).
    private func parClient(_ harness: KitHarness, dpop: Bool = false) throws -> Client {
        var client = try harness.addPublicClient()
        client.requiresPAR = true
        client.requiresDPoP = dpop
        try harness.store.transaction { try $0.update(client) }
        return client
    }

    /// The robot's opener, remembering every URL it was asked to open.
    private func recordingOpener(_ robot: SignInRobot, _ opened: LockedState<[URL]>) -> BrowserOpener {
        BrowserOpener { url in
            opened.withLock { $0.append(url) }
            Task { try? await robot.signIn(at: url) }
        }
    }

    /// The query of `url` as a dictionary.
    private func query(_ url: URL) -> [String: String] {
        var items: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            items[item.name] = item.value ?? ""
        }
        return items
    }

    @Test func aClientHeldToPARSignsInWithAPushedRequest() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try parClient(harness)
            let opened = LockedState<[URL]>([])
            let robot = SignInRobot(email: person.email, password: harness.password)
            let manager = try await harness.manager(
                for: client,
                userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: recordingOpener(robot, opened)))
            #expect(manager.provider.pushedAuthorizationRequestEndpoint?.path == "/oauth/par")
            let result = try await manager.authorize(AuthorizeRequest(scopes: [.openID, .profile]))
            #expect(result.user?.userID == person.id)
            // The browser carried the reference only: no scope, state or PKCE challenge.
            let url = try #require(opened.withLock { $0.first })
            let parameters = query(url)
            #expect(Set(parameters.keys) == ["client_id", "request_uri"])
            #expect(parameters["client_id"] == client.id)
            #expect(parameters["request_uri"]?.hasPrefix("urn:ietf:params:oauth:request_uri:") == true)
            // The reference worked once: the browser cannot start a second sign-in with it.
            let again = try await TestBrowser(base: harness.provider.base).get(url.absoluteString)
            #expect(again.status == 400 && again.location == nil)
        }
    }

    @Test func aProviderThatRequiresPAROfEveryAppSaysSoAndTheSDKSignsIn() async throws {
        try await KitHarness.with(configuration: .testing { $0.requiresPAR = true }) { harness in
            let person = try harness.addUser()
            let robot = SignInRobot(email: person.email, password: harness.password)
            let manager = try await harness.manager(
                for: try harness.addPublicClient(),
                userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener))
            #expect(manager.provider.requiresPushedAuthorizationRequests)
            let result = try await manager.authorize(AuthorizeRequest(scopes: [.openID, .profile]))
            #expect(result.user?.userID == person.id)
        }
    }

    @Test func anUnpushedRequestIsRefusedForThatClient() async throws {
        try await KitHarness.with { harness in
            _ = try harness.addUser()
            let client = try parClient(harness)
            // The same request the SDK would push, sent through the browser instead.
            let manager = try await harness.manager(for: client, userAgent: SystemBrowserUserAgent())
            let pending = PendingAuthorization(request: AuthorizeRequest(scopes: [.openID, .profile]))
            let plain = pending.authorizationURL(
                provider: manager.provider, clientID: client.id,
                redirectURI: try #require(URL(string: "http://127.0.0.1:9/callback")))
            let reply = try await TestBrowser(base: harness.provider.base).get(plain.absoluteString)
            #expect(reply.status == 400)
            #expect(reply.location == nil, "an unpushed request must not reach the login page")

            // And the SDK told not to push cannot sign in at all.
            let opened = LockedState<[URL]>([])
            let never = AuthorizationManager(
                provider: manager.provider, clientID: client.id, redirectURI: manager.redirectURI,
                store: InMemoryTokenStore(),
                userAgent: SystemBrowserUserAgent(
                    timeout: .seconds(3),
                    opener: BrowserOpener { url in
                        opened.withLock { $0.append(url) }
                        _ = try? await TestBrowser(base: harness.provider.base).get(url.absoluteString)
                    }),
                pushedAuthorization: .never)
            let error = await #expect(throws: AuthorizationError.self) {
                try await never.authorize(AuthorizeRequest(scopes: [.openID]))
            }
            #expect(error?.code == .timedOut)
            #expect(opened.withLock { $0.first.map { query($0)["request_uri"] } } == .some(nil))
        }
    }

    @Test func aDPoPProofAtThePushBindsTheCodeAndTheTokens() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let resourceServer = try harness.addResourceServer()
            let client = try parClient(harness, dpop: true)
            let robot = SignInRobot(email: person.email, password: harness.password)
            // Someone who got the code and even the verifier redeems first, with a key of their own.
            let (agent, stolen) = try CodeInterceptor.thief(
                harness, clientID: client.id,
                inner: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener))
            let manager = try await harness.manager(for: client, userAgent: agent)
            _ = try await manager.authorize(AuthorizeRequest(scopes: [.openID, .profile]))
            let attempt = try #require(stolen.withLock { $0.first })
            #expect(attempt.status == 400, "\(attempt.text)")
            #expect(attempt.string("error_description")?.contains("DPoP") == true, "\(attempt.text)")

            // The app's own redemption got tokens bound to the installation's key.
            let grant = try #require(try manager.store.grant(for: manager.storeKey))
            #expect(grant.tokenType == "DPoP")
            let thumbprint = try manager.store.dpopKey().thumbprint
            let introspection = try await harness.post(
                "oauth/introspect",
                [("token", grant.accessToken), ("client_id", resourceServer.id), ("client_secret", "secret")])
            #expect(introspection.json["cnf"]?.objectValue?["jkt"]?.stringValue == thumbprint)

            // A refresh token copied off the device is useless without the key.
            let refreshToken = try #require(grant.refreshToken)
            let withoutKey = try await harness.post(
                "oauth/token",
                [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", client.id)])
            #expect(withoutKey.status == 400 && withoutKey.json["access_token"] == nil)
            let withOtherKey = try await harness.provider.token(
                [("grant_type", "refresh_token"), ("refresh_token", refreshToken)], client: .id(client.id),
                proof: try DPoPProver().proof("POST", harness.provider.issuer + "/oauth/token"))
            #expect(withOtherKey.status == 400 && withOtherKey.string("access_token") == nil)
        }
    }

    @Test func aPushThroughTheAppsBackendBindsTheCodeWithDPoPJKT() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try parClient(harness, dpop: true)
            let robot = SignInRobot(email: person.email, password: harness.password)
            let pushed = LockedState<[PorticoKit.PushedAuthorizationRequest]>([])
            let (agent, stolen) = try CodeInterceptor.thief(
                harness, clientID: client.id,
                inner: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener))
            let discovered = try await Provider.discover(issuer: harness.issuer)
            // The "backend": posts the request as it is, without a proof of its own.
            let manager = AuthorizationManager(
                provider: discovered, clientID: client.id, redirectURI: URL(string: client.redirectURIs[0]),
                store: InMemoryTokenStore(), userAgent: agent,
                pushedAuthorization: .through { request in
                    pushed.withLock { $0.append(request) }
                    let reply = try await harness.post("oauth/par", request.formFields)
                    guard reply.status == 201, let requestURI = reply.json["request_uri"]?.stringValue else {
                        throw HarnessFailure("the push was refused: \(reply.json)")
                    }
                    return PushedAuthorizationResponse(requestURI: requestURI, expiresIn: 60)
                })
            _ = try await manager.authorize(AuthorizeRequest(scopes: [.openID, .profile]))
            let thumbprint = try manager.store.dpopKey().thumbprint
            #expect(pushed.withLock { $0.first?.value(of: "dpop_jkt") } == thumbprint)
            let attempt = try #require(stolen.withLock { $0.first })
            #expect(attempt.status == 400, "\(attempt.text)")
            #expect(try manager.store.grant(for: manager.storeKey)?.tokenType == "DPoP")
        }
    }

    @Test func aRefusedPushSurfacesTheProvidersWordsAndOpensNothing() async throws {
        try await KitHarness.with { harness in
            let client = try parClient(harness)
            let opened = LockedState<[URL]>([])
            let discovered = try await Provider.discover(issuer: harness.issuer)
            // A redirect URI the client never registered: the push is refused before any page.
            let manager = AuthorizationManager(
                provider: discovered, clientID: client.id, redirectURI: URL(string: "http://127.0.0.1/elsewhere"),
                store: InMemoryTokenStore(),
                userAgent: SystemBrowserUserAgent(
                    timeout: .seconds(30), opener: BrowserOpener { url in opened.withLock { $0.append(url) } }))
            let error = await #expect(throws: AuthorizationError.self) {
                try await manager.authorize(AuthorizeRequest(scopes: [.openID]))
            }
            #expect(error?.oauthError == "invalid_request")
            #expect(error?.oauthErrorDescription == "The redirect_uri is not registered for this client.")
            #expect(opened.withLock { $0.isEmpty })
        }
    }

    @Test func aNonceTheServerAsksForAtThePushIsSentOnTheRetry() async throws {
        try await KitHarness.with(configuration: .testing { $0.requiresDPoPNonce = true }) { harness in
            let person = try harness.addUser()
            let client = try parClient(harness, dpop: true)
            // A stale nonce: the push is answered use_dpop_nonce, then retried with the new one.
            DPoPNonceBook.remember("stale", from: harness.issuer)
            let robot = SignInRobot(email: person.email, password: harness.password)
            let manager = try await harness.manager(
                for: client, userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener))
            let pending = PendingAuthorization(request: AuthorizeRequest(scopes: [.openID]))
            let key = try manager.dpopKey()
            let push = PushedAuthorizationClient(http: .shared, dpopKey: key)
            let endpoint = try #require(manager.provider.pushedAuthorizationRequestEndpoint)
            let response = try await push.push(
                PorticoKit.PushedAuthorizationRequest(
                    endpoint: endpoint, clientID: client.id,
                    parameters: pending.authorizationParameters(
                        clientID: client.id, redirectURI: try #require(URL(string: "http://127.0.0.1:9/callback")))))
            #expect(response.requestURI.hasPrefix("urn:ietf:params:oauth:request_uri:"))
            #expect(response.expiresIn == 60)
            #expect(DPoPNonceBook.nonce(for: harness.issuer) != "stale")

            // The whole sign-in through a push that starts with a stale nonce.
            DPoPNonceBook.remember("stale", from: harness.issuer)
            _ = try await manager.authorize(AuthorizeRequest(scopes: [.openID, .profile]))
            #expect(try manager.store.grant(for: manager.storeKey)?.tokenType == "DPoP")
        }
    }
}

/// A user agent that lets a test see the callback before the manager redeems it.
struct CodeInterceptor: UserAgent {
    let inner: any UserAgent
    /// Given the callback, the redirect URI and the PKCE verifier.
    let intercept: @Sendable (URL, URL, String) async throws -> Void

    init(inner: any UserAgent, intercept: @escaping @Sendable (URL, URL, String) async throws -> Void) {
        self.inner = inner
        self.intercept = intercept
    }

    func authorize(_ context: AuthorizationContext) async throws -> AuthorizationOutcome {
        let outcome = try await inner.authorize(context)
        if case .callback(let url, let redirectURI) = outcome.kind {
            try await intercept(url, redirectURI, context.pending.codeVerifier ?? "")
        }
        return outcome
    }

    /// A thief who gets the code and even the verifier from `inner`'s callback and redeems it
    /// first for `clientID`, with a DPoP key of their own; the token endpoint's answers to them.
    static func thief(
        _ harness: KitHarness, clientID: String, inner: any UserAgent
    ) throws -> (agent: CodeInterceptor, answers: LockedState<[TestReply]>) {
        let key = try DPoPProver()
        let answers = LockedState<[TestReply]>([])
        let provider = harness.provider
        let agent = CodeInterceptor(inner: inner) { callback, redirectURI, verifier in
            let code =
                URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems?
                .first { $0.name == "code" }?.value ?? ""
            let reply = try await provider.token(
                [
                    ("grant_type", "authorization_code"), ("code", code),
                    ("redirect_uri", redirectURI.absoluteString), ("code_verifier", verifier),
                ], client: .id(clientID), proof: key.proof("POST", provider.issuer + "/oauth/token"))
            answers.withLock { $0.append(reply) }
        }
        return (agent, answers)
    }
}
