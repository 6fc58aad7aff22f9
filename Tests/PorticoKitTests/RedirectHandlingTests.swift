import Foundation
import Synchronization
import Testing

@testable import PorticoKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Custom-scheme callbacks through `handleOpenURL`, the grace after the app becomes active,
/// and the loopback listener's refusals.
@Suite(.serialized)
struct RedirectHandlingTests {
    let provider = Provider(
        issuer: nil, authorizationEndpoint: URL(string: "https://id.example/authorize")!,
        tokenEndpoint: URL(string: "http://127.0.0.1:9/token")!)

    private func manager(grace: Duration, opened: AsyncStream<URL>.Continuation) -> AuthorizationManager {
        AuthorizationManager(
            provider: provider, clientID: "app", redirectURI: URL(string: "com.example.app:/oauth/callback"),
            store: InMemoryTokenStore(),
            userAgent: CustomSchemeRedirect(opener: BrowserOpener { url in opened.yield(url) }, returnGrace: grace))
    }

    private func state(of url: URL) -> String {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value ?? ""
    }

    @Test func unknownURLsAreLeftToTheApp() async throws {
        let opened = AsyncStream<URL>.makeStream()
        let manager = manager(grace: .seconds(3), opened: opened.continuation)
        #expect(!manager.handleOpenURL(URL(string: "com.example.app:/oauth/callback?code=x&state=y")!))
        let task = Task {
            try await manager.authorize(AuthorizeRequest(scopes: [.profile], grantType: .authorizationCode))
        }
        var iterator = opened.stream.makeAsyncIterator()
        let url = try #require(await iterator.next())
        let state = state(of: url)
        #expect(!manager.handleOpenURL(URL(string: "com.example.app:/payment/result?state=\(state)")!))
        #expect(!manager.handleOpenURL(URL(string: "com.example.app:/oauth/callback?code=x&state=other")!))
        #expect(!manager.handleOpenURL(URL(string: "https://example.com/oauth/callback?state=\(state)")!))
        #expect(manager.handleOpenURL(URL(string: "com.example.app:/oauth/callback?code=the-code&state=\(state)")!))
        let result = try await task.value
        #expect(result.authorizationCode == "the-code")
        #expect(result.redirectURI?.absoluteString == "com.example.app:/oauth/callback")
        // Handled once: the same URL again is no longer this manager's.
        #expect(!manager.handleOpenURL(URL(string: "com.example.app:/oauth/callback?code=the-code&state=\(state)")!))
    }

    @Test func comingBackWithoutACallbackIsTheUsersCancel() async throws {
        let opened = AsyncStream<URL>.makeStream()
        let manager = manager(grace: .milliseconds(100), opened: opened.continuation)
        let outcome = Mutex<(Bool, AuthorizationError?)?>(nil)
        let done = AsyncStream<Void>.makeStream()
        manager.authorize(AuthorizeRequest(scopes: [.profile])) { result, userDidCancel, error in
            outcome.withLock { $0 = (userDidCancel, error) }
            done.continuation.yield()
        }
        var iterator = opened.stream.makeAsyncIterator()
        _ = await iterator.next()
        // The opener has the URL, but the agent may not yet have marked the browser opened, and
        // an activation before that is ignored by design (CustomSchemeTests): come back again
        // each time a grace has passed with no outcome, so the test cannot wait out the deadline.
        let activations = Task {
            while !Task.isCancelled && outcome.withLock({ $0 == nil ? true : false }) {
                manager.applicationDidBecomeActive()
                try? await Task.sleep(for: .milliseconds(300))
            }
        }
        var finished = done.stream.makeAsyncIterator()
        _ = await finished.next()
        activations.cancel()
        #expect(outcome.withLock { $0?.0 } == true)
        #expect(outcome.withLock { $0?.1 } == nil)
    }

    @Test func aCallbackWithinTheGraceStillCompletes() async throws {
        let opened = AsyncStream<URL>.makeStream()
        let manager = manager(grace: .seconds(30), opened: opened.continuation)
        let task = Task {
            try await manager.authorize(AuthorizeRequest(scopes: [.profile], grantType: .authorizationCode))
        }
        var iterator = opened.stream.makeAsyncIterator()
        let url = try #require(await iterator.next())
        manager.applicationDidBecomeActive()
        #expect(manager.handleOpenURL(URL(string: "com.example.app:/oauth/callback?code=c&state=\(state(of: url))")!))
        #expect(try await task.value.authorizationCode == "c")
    }

    @Test func theLoopbackListenerIgnoresStrangersAndAnswersTheCallback() async throws {
        let listener = try LoopbackListener()
        let port = listener.port
        let waiting = Task {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<URL, AuthorizationError>, Never>) in
                Thread.detachNewThread {
                    continuation.resume(
                        returning: listener.serve(
                            path: "/callback", state: "s1", deadline: ContinuousClock.now.advanced(by: .seconds(30))))
                }
            }
        }
        let session = URLSession(configuration: .ephemeral)
        func get(_ target: String) async throws -> (Int, String) {
            let (data, response) = try await session.data(from: URL(string: "http://127.0.0.1:\(port)\(target)")!)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
        }
        #expect(try await get("/favicon.ico").0 == 404)
        #expect(try await get("/callback?code=x&state=forged").0 == 404)
        let (status, page) = try await get("/callback?code=x&state=s1")
        #expect(status == 200)
        #expect(page.contains("You can close this tab"))
        let url = try await waiting.value.get()
        #expect(url.query == "code=x&state=s1")
        #expect(!canConnect(port: Int(port)))
    }
}
