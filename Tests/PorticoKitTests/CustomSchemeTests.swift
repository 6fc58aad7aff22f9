import Foundation
import Testing

@testable import PorticoKit

/// CustomSchemeRedirect's deadline, its one-at-a-time rule, and activations that do not end it.
@Suite(.serialized)
struct CustomSchemeTests {
    let provider = Provider(
        issuer: nil, authorizationEndpoint: URL(string: "https://id.example/authorize")!,
        tokenEndpoint: URL(string: "http://127.0.0.1:9/token")!)

    private func manager(_ agent: CustomSchemeRedirect) -> AuthorizationManager {
        AuthorizationManager(
            provider: provider, clientID: "app", redirectURI: URL(string: "com.example.app:/oauth/callback"),
            store: InMemoryTokenStore(), userAgent: agent)
    }

    private func state(of url: URL) -> String {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value ?? ""
    }

    private let codeRequest = AuthorizeRequest(scopes: [.profile], grantType: .authorizationCode)

    @Test(.timeLimit(.minutes(1)))
    func aCallbackThatNeverComesTimesOut() async throws {
        let manager = manager(CustomSchemeRedirect(opener: BrowserOpener { _ in }, timeout: .milliseconds(200)))
        let error = await #expect(throws: AuthorizationError.self) { try await manager.authorize(codeRequest) }
        #expect(error?.code == .timedOut)
    }

    @Test func aSecondAuthorizationIsRefusedWhileTheFirstWaits() async throws {
        let opened = AsyncStream<URL>.makeStream()
        let manager = manager(
            CustomSchemeRedirect(opener: BrowserOpener { opened.continuation.yield($0) }, timeout: .seconds(5)))
        let first = Task { try await manager.authorize(codeRequest) }
        var iterator = opened.stream.makeAsyncIterator()
        let url = try #require(await iterator.next())
        let second = await #expect(throws: AuthorizationError.self) { try await manager.authorize(codeRequest) }
        #expect(second?.code == .invalidInput)
        #expect(second?.message == "another custom-scheme authorization is already in progress")
        // The first is still the one waiting, and completes with its callback.
        #expect(manager.handleOpenURL(URL(string: "com.example.app:/oauth/callback?code=c1&state=\(state(of: url))")!))
        #expect(try await first.value.authorizationCode == "c1")
    }

    @Test func anActivationBeforeTheBrowserOpenedDoesNotEndTheWait() async throws {
        let opened = AsyncStream<URL>.makeStream()
        let slot = ManagerSlot()
        let agent = CustomSchemeRedirect(
            opener: BrowserOpener { url in
                // The switch to the browser makes the app inactive and active once (a system alert).
                slot.manager?.applicationDidBecomeActive()
                opened.continuation.yield(url)
            }, returnGrace: .milliseconds(20), timeout: .seconds(30))
        let manager = manager(agent)
        slot.manager = manager
        let task = Task { try await manager.authorize(codeRequest) }
        var iterator = opened.stream.makeAsyncIterator()
        let url = try #require(await iterator.next())
        // Longer than the grace: the person is still in the browser, and finishes there.
        try await Task.sleep(for: .milliseconds(300))
        #expect(
            manager.handleOpenURL(URL(string: "com.example.app:/oauth/callback?code=late&state=\(state(of: url))")!))
        #expect(try await task.value.authorizationCode == "late")
    }

    /// Lets the opener reach the manager that owns it.
    final class ManagerSlot: @unchecked Sendable {
        var manager: AuthorizationManager?
    }
}
