import Foundation
import PorticoStore
import Testing

@Suite struct PurgeTests {
    @Test func purgeRemovesOnlyExpiredRows() throws {
        try withStore { store throws in
            let (user, client) = try Fixtures.userAndClient(in: store)
            let now = referenceTime.addingTimeInterval(3600)
            try store.transaction { transaction in
                // Codes: one expired unused, one live, one consumed recently (kept to catch
                // replays), one consumed long ago.
                try transaction.insert(Fixtures.code("expired", user: user, client: client, expiresAt: now))
                try transaction.insert(
                    Fixtures.code("live", user: user, client: client, expiresAt: now.addingTimeInterval(1)))
                try transaction.insert(
                    Fixtures.code("consumed-recent", user: user, client: client, expiresAt: now.addingTimeInterval(-10))
                )
                _ = try transaction.redeemAuthorizationCode("consumed-recent", now: now.addingTimeInterval(-20))
                try transaction.insert(
                    Fixtures.code("consumed-old", user: user, client: client, expiresAt: now.addingTimeInterval(-3600)))
                _ = try transaction.redeemAuthorizationCode("consumed-old", now: now.addingTimeInterval(-3601))

                try transaction.insert(BrowserSession(token: "old", userID: user.id, expiresAt: now))
                try transaction.insert(
                    BrowserSession(token: "fresh", userID: user.id, expiresAt: now.addingTimeInterval(60)))

                try transaction.insert(
                    DeviceAuthorization(
                        deviceCode: "old-device", userCode: "OLD", clientID: client.id, scopes: [],
                        createdAt: referenceTime, expiresAt: now.addingTimeInterval(-1)))
                try transaction.insert(
                    DeviceAuthorization(
                        deviceCode: "new-device", userCode: "NEW", clientID: client.id, scopes: [],
                        createdAt: referenceTime, expiresAt: now.addingTimeInterval(600)))

                try transaction.revokeAccessToken(id: "gone", expiresAt: now.addingTimeInterval(-1))
                try transaction.revokeAccessToken(id: "kept", expiresAt: now.addingTimeInterval(1))

            }

            let report = try store.purgeExpired(now: now)
            #expect(
                report
                    == PurgeReport(
                        authorizationCodes: 2, sessions: 1, deviceAuthorizations: 1, accessTokenRevocations: 1))
            #expect(try store.authorizationCode("expired") == nil)
            #expect(try store.authorizationCode("consumed-old") == nil)
            #expect(try store.authorizationCode("live") != nil)
            #expect(try store.authorizationCode("consumed-recent") != nil)
            #expect(try store.sessions(userID: user.id).count == 1)
            #expect(try store.session(token: "fresh", now: now) != nil)
            #expect(try store.deviceAuthorization(deviceCode: "old-device") == nil)
            #expect(try store.deviceAuthorization(deviceCode: "new-device") != nil)
            #expect(try store.isAccessTokenRevoked(id: "kept"))
            #expect(try !store.isAccessTokenRevoked(id: "gone"))

            // A second purge at the same instant finds nothing more.
            #expect(try store.purgeExpired(now: now).total == 0)
        }
    }

    @Test func backgroundPurgerPurgesUntilStopped() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.databasePath())
        defer { store.close() }
        let (user, _) = try Fixtures.userAndClient(in: store)
        // Expired by the real clock, which the purger uses.
        try store.insert(
            BrowserSession(token: "stale", userID: user.id, expiresAt: Date(timeIntervalSince1970: 1_000_000_000)))

        let reports = LockedList<PurgeReport>()
        let purger = BackgroundPurger(store: store, interval: .milliseconds(20)) { reports.append($0) }
        // Bounded wait for the first purge; no timing is asserted.
        for _ in 0..<500 where reports.all.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
        }
        await purger.stopAndWait()
        #expect(reports.all.first?.sessions == 1)
        #expect(try store.sessions(userID: user.id).isEmpty)
    }
}
