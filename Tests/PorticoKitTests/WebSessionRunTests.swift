import Foundation
import Testing

@testable import PorticoKit

/// The in-app web session's outcome (the seam the Apple agent feeds): it always ends, a late
/// callback still wins while the caller waits, and the account link's grace waits for the sheet.
@Suite(.serialized)
struct WebSessionRunTests {
    private static let callback = URL(string: "com.example.app:/callback?code=c&state=s")!
    /// This suite's own count of running sessions, so that other suites running at the same
    /// time (an account link waiting for its grace) never see these runs.
    private let presence = WebSessionPresence()

    /// Counts `onEnd` calls.
    final class EndCounter: Sendable {
        let count = LockedState(0)
        func end() { count.withLock { $0 += 1 } }
    }

    private func code(of body: () async throws -> URL) async -> AuthorizationError.Code? {
        do {
            _ = try await body()
            return nil
        } catch let error as AuthorizationError {
            return error.code
        } catch {
            return nil
        }
    }

    @Test func theCallbackEndsTheRunOnceAndTheSheetIsNoLongerCounted() async throws {
        let ends = EndCounter()
        let run = WebSessionRun(
            timeout: .seconds(30), isSheetShowing: { true }, onEnd: { ends.end() }, presence: presence)
        #expect(presence.isPresenting)
        run.completed(callback: Self.callback, error: nil, isCanceledLogin: false)
        run.completed(callback: nil, error: nil, isCanceledLogin: true)
        #expect(try await run.wait() == Self.callback)
        #expect(ends.count.withLock { $0 } == 1)
        #expect(!presence.isPresenting)
    }

    /// A completion the system never delivers (the device locked during its alert) ends at the
    /// deadline rather than never.
    @Test func aLostCompletionEndsAtTheDeadline() async {
        let run = WebSessionRun(timeout: .milliseconds(200), isSheetShowing: { true }, presence: presence)
        #expect(await code { try await run.wait() } == .timedOut)
        #expect(!presence.isPresenting)
    }

    @Test func backInTheForegroundWithNoSheetTheRunEndsAsTheLossItIs() async {
        let run = WebSessionRun(
            timeout: .seconds(30), foregroundSettle: .milliseconds(100), isSheetShowing: { false }, presence: presence)
        run.returnedToForeground()
        #expect(await code { try await run.wait() } == .userCancelled)
    }

    @Test func backInTheForegroundWithTheSheetUpTheRunWaitsForTheCallback() async throws {
        let run = WebSessionRun(
            timeout: .seconds(30), foregroundSettle: .milliseconds(50), isSheetShowing: { true }, presence: presence)
        run.returnedToForeground()
        try await Task.sleep(for: .milliseconds(300))
        #expect(!run.hasEnded)
        run.completed(callback: Self.callback, error: nil, isCanceledLogin: false)
        #expect(try await run.wait() == Self.callback)
    }

    /// The system delivers the completion just after the app came back: it still wins.
    @Test func aLateCallbackDuringTheSettleTimeWins() async throws {
        let run = WebSessionRun(
            timeout: .seconds(30), foregroundSettle: .milliseconds(400), isSheetShowing: { false }, presence: presence)
        run.returnedToForeground()
        try await Task.sleep(for: .milliseconds(100))
        run.completed(callback: Self.callback, error: nil, isCanceledLogin: false)
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await run.wait() == Self.callback)
    }

    @Test func theAppsCancelIsToldFromThePersons() async {
        let person = WebSessionRun(timeout: .seconds(30), isSheetShowing: { true }, presence: presence)
        person.completed(callback: nil, error: nil, isCanceledLogin: true)
        #expect(await code { try await person.wait() } == .userCancelled)

        let app = WebSessionRun(timeout: .seconds(30), isSheetShowing: { true }, presence: presence)
        let waiting = Task {
            await code {
                try await withTaskCancellationHandler {
                    try await app.wait()
                } onCancel: {
                    app.cancelByApp()
                }
            }
        }
        try? await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        #expect(await waiting.value == .cancelled)
        // The session's own "canceled login" that follows the app's cancel changes nothing.
        app.completed(callback: nil, error: nil, isCanceledLogin: true)
        #expect(await code { try await app.wait() } == .cancelled)

        let broken = WebSessionRun(timeout: .seconds(30), isSheetShowing: { true }, presence: presence)
        broken.failedToStart()
        #expect(await code { try await broken.wait() } == .invalidInput)
    }

    /// UIKit reports "active" when the sheet's system alert closes: while a web session runs,
    /// the account link's "returned without acting" grace does not start.
    @Test func theAccountLinkGraceWaitsForTheSheet() async throws {
        let attempt = AccountLinkAttempt(grace: .milliseconds(100), presence: presence)
        attempt.start(deadline: .seconds(30)) { _ in
            try await Task.sleep(for: .seconds(30))
            throw AuthorizationError.taskCancelled
        }
        let run = WebSessionRun(timeout: .seconds(30), isSheetShowing: { true }, presence: presence)
        attempt.becameActive()
        let ended = LockedState(false)
        let outcome = Task { () -> AccountLinkError.Code? in
            defer { ended.withLock { $0 = true } }
            do {
                _ = try await attempt.wait()
                return nil
            } catch let error as AccountLinkError {
                return error.code
            } catch {
                return nil
            }
        }
        try await Task.sleep(for: .milliseconds(400))
        #expect(!ended.withLock { $0 })
        run.completed(callback: nil, error: nil, isCanceledLogin: true)
        // The sheet is gone; the next activation is a real return.
        attempt.becameActive()
        #expect(await outcome.value == .returnedWithoutActing)
    }

    /// Records sign-outs; available as asked.
    final class Recorder: UserAgent, Sendable {
        let available: Bool
        let endings = LockedState(0)
        init(available: Bool) { self.available = available }
        func authorize(_ context: AuthorizationContext) async throws -> AuthorizationOutcome {
            .callback(Self.callbackURL, redirectURI: URL(string: "com.example.app:/callback")!)
        }
        func isAvailable(for context: AuthorizationContext) -> Bool { available }
        func endSession(at url: URL, redirectURI: URL?) async throws { endings.withLock { $0 += 1 } }
        static let callbackURL = URL(string: "com.example.app:/callback?code=c")!
    }

    private func context(redirectURI: String) -> AuthorizationContext {
        let provider = Provider(
            issuer: "https://id.example", authorizationEndpoint: URL(string: "https://id.example/authorize")!,
            tokenEndpoint: URL(string: "https://id.example/token")!)
        let request = AuthorizeRequest(scopes: [.profile])
        return AuthorizationContext(
            provider: provider, clientID: "app", scopes: request.scopes, redirectURI: URL(string: redirectURI),
            grantType: .accessToken, pending: PendingAuthorization(request: request), http: .shared,
            redirects: RedirectSlot())
    }

    @Test func signOutGoesThroughTheAgentThatSignedIn() async throws {
        let endSession = URL(string: "https://id.example/logout")!
        let companion = Recorder(available: true)
        let web = Recorder(available: true)
        let opened = LockedState<[URL]>([])
        let opener = BrowserOpener { url in opened.withLock { $0.append(url) } }
        let automatic = AutomaticUserAgent(companion: companion, browserOpener: opener, webSession: web)
        _ = try await automatic.authorize(context(redirectURI: "com.example.app:/callback"))
        try await automatic.endSession(at: endSession, redirectURI: URL(string: "com.example.app:/callback"))
        #expect(companion.endings.withLock { $0 } == 1)
        #expect(web.endings.withLock { $0 } == 0)
        #expect(opened.withLock { $0 }.isEmpty)

        // After a restart (nothing remembered): a loopback redirect never shows the web session.
        let restarted = AutomaticUserAgent(companion: nil, browserOpener: opener, webSession: web)
        try await restarted.endSession(at: endSession, redirectURI: URL(string: "http://127.0.0.1/callback"))
        #expect(web.endings.withLock { $0 } == 0)
        #expect(opened.withLock { $0 } == [endSession])
        try await restarted.endSession(at: endSession, redirectURI: URL(string: "com.example.app:/callback"))
        #expect(web.endings.withLock { $0 } == 1)
    }
}
