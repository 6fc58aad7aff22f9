import Foundation
import Testing

@testable import PorticoKit

/// A caller that gives up on a shared refresh stops waiting; the refresh goes on for the rest.
struct RefreshCancellationTests {
    @Test func aCancelledCallerStopsWaitingButTheSharedRefreshContinues() async throws {
        // A token endpoint that accepts connections and never answers.
        let silent = try SilentListener()
        defer { silent.close() }
        let base = "http://127.0.0.1:\(silent.port)"
        let provider = Provider(
            issuer: base, authorizationEndpoint: URL(string: base + "/authorize")!,
            tokenEndpoint: URL(string: base + "/token")!)
        let tokenStore = InMemoryTokenStore()
        let manager = AuthorizationManager(
            provider: provider, clientID: "app", store: tokenStore, userAgent: DeviceCodeUserAgent { _ in },
            refreshTimeout: 3)
        try tokenStore.save(
            StoredGrant(accessToken: "old", expiresAt: Date().addingTimeInterval(-5), refreshToken: "r", scopes: ["p"]),
            for: manager.storeKey)

        let keeper = Task { () -> AuthorizationError.Code? in
            do { _ = try await manager.validAccessToken() } catch { return (error as? AuthorizationError)?.code }
            return nil
        }
        let quitter = Task { () -> AuthorizationError.Code? in
            do { _ = try await manager.validAccessToken() } catch { return (error as? AuthorizationError)?.code }
            return nil
        }
        quitter.cancel()
        #expect(await quitter.value == .cancelled)
        // The refresh was not cancelled with it: the other caller still gets the refresh's own end.
        #expect(await keeper.value == .timedOut)
        #expect(try tokenStore.grant(for: manager.storeKey)?.refreshToken == "r")
    }
}
