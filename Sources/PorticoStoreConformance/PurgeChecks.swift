import Foundation
import PorticoStore
import Testing

struct PurgeTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func purgeRemovesOnlyExpiredRows() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let now = referenceTime.addingTimeInterval(3600)
            try store.transaction { transaction in
                // Codes: one expired unused, one live, one consumed recently (kept to catch
                // replays), one consumed long ago.
                try transaction.insert(StoreFixtures.code("expired", user: user, client: client, expiresAt: now))
                try transaction.insert(
                    StoreFixtures.code("live", user: user, client: client, expiresAt: now.addingTimeInterval(1)))
                try transaction.insert(
                    StoreFixtures.code(
                        "consumed-recent", user: user, client: client, expiresAt: now.addingTimeInterval(-10))
                )
                _ = try transaction.redeemAuthorizationCode("consumed-recent", now: now.addingTimeInterval(-20))
                try transaction.insert(
                    StoreFixtures.code(
                        "consumed-old", user: user, client: client, expiresAt: now.addingTimeInterval(-3600)))
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

    /// Families go a day after their token expired or they were revoked, a slice per purge
    /// (10,000), each purge going on from where the last stopped and starting over at the end.
    func refreshFamiliesArePurgedASliceAtATime() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let now = referenceTime.addingTimeInterval(10 * 86_400)
            let day: TimeInterval = 86_400
            // Where a family falls in the slices must not be left to chance: SQLite slices by rowid
            // (the order of insertion) and PostgreSQL by id, and with random ids one run in about
            // 700 had a kept family among the last five, outside the first slice. The kept ones
            // are inserted first and their ids sort first ("0…" before "1…", in any collation),
            // so the first slice holds them and the five past it are all dead.
            func family(_ id: String, expiring expiry: Date, revokedAt: Date? = nil) -> (RefreshFamily, Date) {
                let family = RefreshFamily(
                    id: id, clientID: client.id, userID: user.id, scopes: [], authTime: referenceTime,
                    createdAt: referenceTime, revokedAt: revokedAt)
                return (family, expiry)
            }
            func family(expiring expiry: Date, revokedAt: Date? = nil) -> (RefreshFamily, Date) {
                family("1" + RecordIdentifier.random(), expiring: expiry, revokedAt: revokedAt)
            }
            let kept = [
                family("0kept0", expiring: now + day), family("0kept1", expiring: now - 10),
                family("0kept2", expiring: now + day, revokedAt: now),
            ]
            let gone = [family(expiring: now - 2 * day), family(expiring: now + day, revokedAt: now - 2 * day)]
            let filler = (0..<10_000).map { _ in family(expiring: now - 3 * day) }
            try store.transaction { transaction in
                for (family, expiry) in kept + gone + filler {
                    try transaction.insert(family, token: RefreshToken.mint(familyID: family.id), expiresAt: expiry)
                }
            }
            #expect(try store.purgeExpired(now: now).refreshFamilies == 9_997)
            #expect(try store.purgeExpired(now: now).refreshFamilies == 5)
            for (family, _) in kept { #expect(try store.refreshFamily(id: family.id) != nil) }
            for (family, _) in gone { #expect(try store.refreshFamily(id: family.id) == nil) }
            // The end of the table: the next purge starts over and finds a newer dead family.
            #expect(try store.purgeExpired(now: now).refreshFamilies == 0)
            let late = family(expiring: now - 2 * day)
            try store.insert(late.0, token: RefreshToken.mint(familyID: late.0.id), expiresAt: late.1)
            #expect(try store.purgeExpired(now: now).refreshFamilies == 1)
        }
    }
}

/// The checks of this file, named as the tests they were.
enum PurgeChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("PurgeTests.purgeRemovesOnlyExpiredRows") { try PurgeTests(open: $0).purgeRemovesOnlyExpiredRows() },
            .init("PurgeTests.refreshFamiliesArePurgedASliceAtATime") {
                try PurgeTests(open: $0).refreshFamiliesArePurgedASliceAtATime()
            },
        ]
    }
}
