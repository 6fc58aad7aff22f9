import Foundation
import Synchronization
import Testing

@testable import PorticoKit

/// The companion app's front door: the universal link first, the fallback when no app takes
/// it or when the link cannot work. `openInApp` stands in for `UIApplication.open` with
/// `.universalLinksOnly`, which cannot run here.
@Suite(.serialized)
struct UniversalLinkUserAgentTests {
    private static let https = Provider(
        issuer: nil, authorizationEndpoint: URL(string: "https://id.example/authorize")!,
        tokenEndpoint: URL(string: "http://127.0.0.1:9/token")!)
    private static let appRedirect = URL(string: "com.example.app:/oauth/callback")!
    private let codeRequest = AuthorizeRequest(scopes: [.profile], grantType: .authorizationCode)

    /// A fallback that answers with a fixed code and counts its calls.
    final class Fallback: UserAgent {
        let calls = Mutex<Int>(0)
        func authorize(_ context: AuthorizationContext) async throws -> AuthorizationOutcome {
            calls.withLock { $0 += 1 }
            let redirect = try #require(context.redirectURI)
            let state = context.pending.state
            return .callback(
                URL(string: redirect.absoluteString + "?code=from-fallback&state=\(state)")!, redirectURI: redirect)
        }
    }

    final class Box: Sendable {
        let fallback = Fallback()
        let opened = Mutex<[URL]>([])
        let manager = Mutex<AuthorizationManager?>(nil)
    }

    private func manager(
        _ box: Box, provider: Provider = Self.https, redirectURI: URL = Self.appRedirect,
        openInApp: @escaping @Sendable (Box, URL) async -> Bool
    ) -> AuthorizationManager {
        let agent = UniversalLinkUserAgent(fallback: box.fallback, timeout: .seconds(20)) { url in
            box.opened.withLock { $0.append(url) }
            return await openInApp(box, url)
        }
        let manager = AuthorizationManager(
            provider: provider, clientID: "app", redirectURI: redirectURI, store: InMemoryTokenStore(),
            userAgent: agent)
        box.manager.withLock { $0 = manager }
        return manager
    }

    private static func state(of url: URL) -> String {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value ?? ""
    }

    @Test func anInstalledAppTakesTheLinkAndAnswersThroughTheRedirect() async throws {
        let box = Box()
        let manager = manager(box) { box, url in
            // The companion app signs the person in and opens the app's redirect URI, which the
            // app hands to the manager (here before `open` even reports success).
            let callback = URL(string: Self.appRedirect.absoluteString + "?code=from-app&state=\(Self.state(of: url))")!
            _ = box.manager.withLock { $0 }?.handleOpenURL(callback)
            return true
        }
        let result = try await manager.authorize(codeRequest)
        #expect(result.authorizationCode == "from-app")
        #expect(box.fallback.calls.withLock { $0 } == 0)
        let opened = try #require(box.opened.withLock { $0.first })
        #expect(opened.host == "id.example")
        #expect(opened.absoluteString.contains("redirect_uri=com.example.app%3A%2Foauth%2Fcallback"))
    }

    @Test func withNoAppForTheLinkTheFallbackShowsThePage() async throws {
        let box = Box()
        let manager = manager(box) { _, _ in false }
        let result = try await manager.authorize(codeRequest)
        #expect(result.authorizationCode == "from-fallback")
        #expect(box.fallback.calls.withLock { $0 } == 1)
        #expect(box.opened.withLock { $0.count } == 1)
        // The link's wait was taken down: a late callback for it is not claimed.
        let link = try #require(box.opened.withLock { $0.first })
        let late = URL(string: Self.appRedirect.absoluteString + "?code=late&state=\(Self.state(of: link))")!
        #expect(!manager.handleOpenURL(late))
    }

    @Test func aLoopbackRedirectOrAnHTTPEndpointGoesStraightToTheFallback() async throws {
        let loopback = Box()
        let first = manager(loopback, redirectURI: URL(string: "http://127.0.0.1/callback")!) { _, _ in true }
        #expect(try await first.authorize(codeRequest).authorizationCode == "from-fallback")
        #expect(loopback.opened.withLock { $0.isEmpty })

        let plain = Box()
        let provider = Provider(
            issuer: nil, authorizationEndpoint: URL(string: "http://127.0.0.1:9/authorize")!,
            tokenEndpoint: URL(string: "http://127.0.0.1:9/token")!)
        let second = manager(plain, provider: provider) { _, _ in true }
        #expect(try await second.authorize(codeRequest).authorizationCode == "from-fallback")
        #expect(plain.opened.withLock { $0.isEmpty })
    }

    @Test(.timeLimit(.minutes(1)))
    func comingBackFromTheAppWithoutAnAnswerEndsTheSignIn() async throws {
        let box = Box()
        let manager = manager(box) { box, _ in
            Task {
                // The person leaves the companion app without signing in and returns.
                try? await Task.sleep(for: .milliseconds(100))
                box.manager.withLock { $0 }?.applicationDidBecomeActive()
            }
            return true
        }
        let error = await #expect(throws: AuthorizationError.self) { try await manager.authorize(codeRequest) }
        #expect(error?.code == .userCancelled)
        #expect(box.fallback.calls.withLock { $0 } == 0)
    }
}
