import Foundation
import PorticoServer
import Testing

@testable import PorticoKit

/// The logging hook: lines for what happened, against the real provider, and no secret in any.
@Suite(.serialized)
struct PorticoKitLogTests {
    @Test func secretsAreRedactedWhereverTheyAppear() {
        let jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"
        let line = PorticoKitLog.redact(
            "GET /cb?code=abc123&state=s1 form grant_type=refresh_token&refresh_token=r-9&client_id=app "
                + #"{"access_token":"at-1","token_type":"Bearer"} Authorization: Bearer at-2 hint "# + jwt)
        for secret in ["abc123", "r-9", "at-1", "at-2", jwt, "c2lnbmF0dXJl"] { #expect(!line.contains(secret)) }
        for kept in ["state=s1", "client_id=app", "grant_type=refresh_token", #""token_type":"Bearer""#] {
            #expect(line.contains(kept))
        }
    }

    @Test func signInRefreshAndSignOutAreLoggedWithoutTokens() async throws {
        let lines = LockedState<[String]>([])
        PorticoKitLog.setHandler { level, line in lines.withLock { $0.append("\(level.rawValue) \(line)") } }
        defer { PorticoKitLog.setHandler(PorticoKitLog.defaultHandler) }
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try harness.addPublicClient()
            let manager = try await harness.signIn(person, client: client)
            let first = try #require(try manager.store.grant(for: manager.storeKey))
            try expireAccessToken(of: manager)
            let refreshed = try await manager.validAccessToken()
            let second = try #require(try manager.store.grant(for: manager.storeKey))
            try await manager.signOut()

            let mine = lines.withLock { $0 }.filter { $0.contains(client.id) }
            #expect(mine.contains { $0.hasPrefix("info ") && $0.hasSuffix("signed in") })
            #expect(mine.contains { $0.hasSuffix("refreshed the access token") })
            #expect(mine.contains { $0.hasSuffix("signed out") })
            let secrets = [first.accessToken, first.refreshToken, second.refreshToken, refreshed, first.idToken]
            let all = lines.withLock { $0 }.joined(separator: "\n")
            for case let secret? in secrets { #expect(!all.contains(secret)) }
        }
    }
}
