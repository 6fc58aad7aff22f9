import Foundation
import PorticoServer
import PorticoStore
import Synchronization
import Testing

@testable import PorticoKit

/// What app developers coming from LWA or AppAuth expect on day one, against a real provider.
@Suite(.serialized)
struct DayOneFeatureTests {
    @Test func theRawIDTokenIsKeptAndExposed() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let manager = try await harness.signIn(person, client: try harness.addPublicClient())
            let grant = try #require(try manager.store.grant(for: manager.storeKey))
            let idToken = try #require(grant.idToken)
            #expect(manager.idToken == idToken)
            #expect(idToken.split(separator: ".").count == 3)
            let result = try await manager.authorize(AuthorizeRequest(scopes: [.openID], interactiveStrategy: .never))
            #expect(result.idToken == idToken)
            #expect(!"\(result)".contains(idToken))
        }
    }

    @Test func freshTokensOnDemandAndObservedChanges() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try harness.addPublicClient()
            let robot = SignInRobot(email: person.email, password: harness.password)
            let manager = try await harness.manager(
                for: client, userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener))
            #expect(!manager.isSignedIn)
            var changes = manager.grantChanges.makeAsyncIterator()

            _ = try await manager.authorize(AuthorizeRequest(scopes: [.openID, .profile]))
            #expect(manager.isSignedIn)
            #expect(await changes.next() == .signedIn)
            let first = try #require(try manager.store.grant(for: manager.storeKey))

            // Fresh for a minute, not for ten hours: asking for more refreshes first.
            #expect(try await manager.validAccessToken() == first.accessToken)
            let longer = try await manager.validAccessToken(minimumLifetime: 36_000)
            #expect(longer != first.accessToken)
            #expect(await changes.next() == .refreshed)

            let forced = try await manager.forceRefresh()
            #expect(forced != longer)
            #expect(await changes.next() == .refreshed)
            let latest = try manager.store.grant(for: manager.storeKey)?.refreshToken
            #expect(latest != first.refreshToken)
            #expect(
                try harness.store.read { try RefreshTokenPolicy.token(try #require(latest), in: $0) }?.rotatedAt == nil)

            try await manager.signOut()
            #expect(!manager.isSignedIn)
            #expect(await changes.next() == .signedOut)
        }
    }

    @Test func signingOutCanEndTheProviderSessionInTheSameBrowser() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try harness.addPublicClient()
            let robot = SignInRobot(email: person.email, password: harness.password)
            let logoutPage = Mutex<(URL, String)?>(nil)
            let opener = BrowserOpener { url in
                if url.path == "/oauth/logout" {
                    let page = try await robot.visit(url)
                    logoutPage.withLock { $0 = (url, page) }
                } else {
                    Task { try? await robot.signIn(at: url) }
                }
            }
            let manager = try await harness.manager(
                for: client, userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: opener))
            #expect(manager.provider.endSessionEndpoint?.path == "/oauth/logout")
            _ = try await manager.authorize(AuthorizeRequest(scopes: [.openID, .profile]))
            let idToken = try #require(manager.idToken)

            try await manager.signOut(endingProviderSession: true)

            let (url, page) = try #require(logoutPage.withLock { $0 })
            let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(query.first { $0.name == "id_token_hint" }?.value == idToken)
            #expect(query.first { $0.name == "client_id" }?.value == client.id)
            // The hint proved the session, so the provider ended it without asking.
            #expect(page.contains("You are signed out"))
            #expect(!manager.isSignedIn)
        }
    }

    @Test func scopeDataTravelsAsScopeData() throws {
        let provider = Provider(
            issuer: nil, authorizationEndpoint: URL(string: "https://id.example/authorize")!,
            tokenEndpoint: URL(string: "https://id.example/token")!)
        let alexa = Scope(
            name: "alexa:all",
            data: ["productID": "Speaker", "productInstanceAttributes": ["deviceSerialNumber": "1234"]])
        let request = AuthorizeRequest(scopes: [alexa, .profile], maxAge: 600)
        let url = PendingAuthorization(request: request).authorizationURL(
            provider: provider, clientID: "app", redirectURI: URL(string: "http://127.0.0.1/callback")!)
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.first { $0.name == "scope" }?.value == "alexa:all profile")
        #expect(query.first { $0.name == "max_age" }?.value == "600")
        let data = try #require(query.first { $0.name == "scope_data" }?.value)
        #expect(
            ProfileValue(parsing: Array(data.utf8))
                == ["alexa:all": ["productID": "Speaker", "productInstanceAttributes": ["deviceSerialNumber": "1234"]]])
    }

    @Test func anAppChallengeThatIsNotS256FailsBeforeAnyPage() async throws {
        let provider = Provider(
            issuer: nil, authorizationEndpoint: URL(string: "https://id.example/authorize")!,
            tokenEndpoint: URL(string: "https://id.example/token")!)
        let manager = AuthorizationManager(
            provider: provider, clientID: "app", redirectURI: URL(string: "com.example.app:/cb"),
            store: InMemoryTokenStore(), userAgent: SignInOutcomeTests.NoPages())
        var plain = AuthorizeRequest(scopes: [.profile], grantType: .authorizationCode)
        plain.codeChallenge = "a-plain-verifier-is-not-a-challenge-at-all-really"
        plain.codeChallengeMethod = "plain"
        let method = await #expect(throws: AuthorizationError.self) { try await manager.authorize(plain) }
        #expect(method?.code == .invalidInput)
        #expect(method?.message == "the code challenge method plain is not accepted; use S256")
        plain.codeChallengeMethod = "S256"
        let shape = await #expect(throws: AuthorizationError.self) { try await manager.authorize(plain) }
        #expect(shape?.message.contains("not S256") == true)
    }
}
