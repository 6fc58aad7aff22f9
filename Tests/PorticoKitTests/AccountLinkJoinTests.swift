import Foundation
import Testing

@testable import PorticoKit

/// A caller that joins a fetch already running stops waiting when it is cancelled; the fetch
/// goes on for the caller that started it.
struct AccountLinkJoinTests {
    @Test func aCancelledJoinerStopsWaitingAndTheFetchGoesOn() async throws {
        let session = AccountLinkSession(
            store: InMemoryTokenStore(), storeKey: TokenStoreKey(provider: "https://id.example", clientID: "host"),
            timeout: .seconds(30),
            fetch: { _ in
                try await Task.sleep(for: .seconds(30))
                throw AuthorizationError.taskCancelled
            },
            unbind: { _ in })
        let firstEnded = LockedState(false)
        let first = Task { () -> AccountLinkError.Code? in
            defer { firstEnded.withLock { $0 = true } }
            do {
                _ = try await session.authModel()
                return nil
            } catch { return (error as? AccountLinkError)?.code }
        }
        try await Task.sleep(for: .milliseconds(200))
        let joiner = Task { () -> AccountLinkError.Code? in
            do {
                _ = try await session.authModel()
                return nil
            } catch { return (error as? AccountLinkError)?.code }
        }
        try await Task.sleep(for: .milliseconds(200))
        joiner.cancel()
        #expect(await joiner.value == .cancelled)
        // The joiner left while the fetch still ran: the first caller still waits for it, until
        // the host app logs out.
        try await Task.sleep(for: .milliseconds(200))
        #expect(!firstEnded.withLock { $0 })
        try await session.logout()
        #expect(await first.value == .cancelled)
    }
}
