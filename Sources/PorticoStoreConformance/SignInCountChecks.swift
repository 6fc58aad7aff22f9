import Foundation
import PorticoStore
import Testing

/// Apps' daily sign-in counts (``SignInCountStorage``) on every backend: counted per UTC day
/// and app, read from a day on, kept 90 days by the purge, and counted exactly when two nodes
/// count at once.
struct SignInCountStoreTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func signInsAreCountedPerAppAndDayAndPurgedAfterNinetyDays() throws {
        try withStore { store throws in
            let (_, client) = try StoreFixtures.userAndClient(in: store)
            var other = StoreFixtures.client()
            other.id = "sign-in-count-other"
            try store.writeOne { try $0.insert(other) }
            let today = DailySignIns.day(of: referenceTime)
            let midnight = Date(timeIntervalSince1970: TimeInterval(today) * 86_400)
            for time in [midnight, midnight.addingTimeInterval(86_399), midnight.addingTimeInterval(-1)] {
                try store.writeOne { try $0.countSignIn(clientID: client.id, at: time) }
            }
            try store.writeOne { try $0.countSignIn(clientID: other.id, at: midnight) }
            try store.writeOne {
                try $0.countSignIn(clientID: client.id, at: midnight.addingTimeInterval(-40 * 86_400))
            }
            #expect(
                try store.read { try $0.signInsPerDay(clientID: client.id, from: today - 29) }
                    == [DailySignIns(day: today - 1, count: 1), DailySignIns(day: today, count: 2)])
            #expect(
                try store.read { try $0.signInsPerDay(clientID: client.id, from: today - 40) }.first
                    == DailySignIns(day: today - 40, count: 1))
            #expect(try store.read { try $0.signInsPerDay(clientID: other.id, from: 0) }.map(\.count) == [1])
            #expect(throws: StoreError.self) {
                try store.writeOne { try $0.countSignIn(clientID: "no-such-client", at: midnight) }
            }

            #expect(try store.purgeExpired(now: midnight.addingTimeInterval(50 * 86_400)).signInDays == 0)
            #expect(try store.purgeExpired(now: midnight.addingTimeInterval(51 * 86_400)).signInDays == 1)
            #expect(try store.read { try $0.signInsPerDay(clientID: client.id, from: 0) }.count == 2)
        }
    }

    func twoNodesCountingAtOnceLoseNoSignIn() throws {
        let races = RaceChecks(open: open)
        let clientID = "sign-in-count-race"
        let count: @Sendable (any Store, Int) throws -> Bool = { store, _ in
            try store.writeOne { try $0.countSignIn(clientID: clientID, at: referenceTime) }
            return true
        }
        let rounds = try races.race(
            setUp: { store, round in
                if round == 0 {
                    var client = StoreFixtures.client()
                    client.id = clientID
                    try store.writeOne { try $0.insert(client) }
                }
            }, count)
        for outcomes in rounds {
            #expect(races.wins(outcomes) { $0 } == 2)
        }
        let counted = try races.withStore { store in
            try store.read { try $0.signInsPerDay(clientID: clientID, from: 0) }.map(\.count)
        }
        #expect(counted == [rounds.count * 2])
    }
}

/// The checks of this file, named as the tests they are.
enum SignInCountChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("SignInCountStoreTests.signInsAreCountedPerAppAndDayAndPurgedAfterNinetyDays") {
                try SignInCountStoreTests(open: $0).signInsAreCountedPerAppAndDayAndPurgedAfterNinetyDays()
            },
            .init("SignInCountStoreTests.twoNodesCountingAtOnceLoseNoSignIn") {
                try SignInCountStoreTests(open: $0).twoNodesCountingAtOnceLoseNoSignIn()
            },
        ]
    }
}
