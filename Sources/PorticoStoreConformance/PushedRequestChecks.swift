import Foundation
import PorticoStore
import Testing

/// The pushed authorization requests (``PushedRequestStorage``) on every backend: a request is
/// taken once, only by its client, only before it expires, also when two nodes race for it; the
/// purge forgets the expired ones; and a client's `requiresPAR` survives a round trip.
struct PushedRequestStoreTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func aRequestIsTakenOnceByItsClientBeforeItExpires() throws {
        try withStore { store throws in
            let (_, client) = try StoreFixtures.userAndClient(in: store)
            let until = referenceTime.addingTimeInterval(60)
            let pushed = PushedAuthorizationRequest(
                clientID: client.id, parameters: #"{"scope":"openid"}"#, expiresAt: until)
            try store.writeOne { try $0.insertPushedRequest(pushed, reference: "ref-1") }
            try store.writeOne { try $0.insertPushedRequest(pushed, reference: "ref-2") }
            #expect(throws: StoreError.self) {
                try store.writeOne { try $0.insertPushedRequest(pushed, reference: "ref-1") }
            }
            // Another client's reference, an unknown one, an expired one: nothing, and nothing removed.
            #expect(
                try store.writeOne {
                    try $0.takePushedRequest(reference: "ref-1", clientID: "other", now: referenceTime)
                } == nil)
            #expect(
                try store.writeOne {
                    try $0.takePushedRequest(reference: "ref-9", clientID: client.id, now: referenceTime)
                } == nil)
            #expect(
                try store.writeOne { try $0.takePushedRequest(reference: "ref-2", clientID: client.id, now: until) }
                    == nil)
            let taken = try store.writeOne {
                try $0.takePushedRequest(reference: "ref-1", clientID: client.id, now: until.addingTimeInterval(-1))
            }
            #expect(taken == pushed)
            #expect(
                try store.writeOne {
                    try $0.takePushedRequest(reference: "ref-1", clientID: client.id, now: referenceTime)
                } == nil)
            #expect(try store.purgeExpired(now: until.addingTimeInterval(-1)).pushedRequests == 0)
            #expect(try store.purgeExpired(now: until).pushedRequests == 1)

            var updated = client
            updated.requiresPAR = true
            try store.writeOne { try $0.update(updated) }
            #expect(try store.read { try $0.client(id: client.id) }?.requiresPAR == true)
        }
    }

    func twoNodesTakingOneRequestOneWins() throws {
        let races = RaceChecks(open: open)
        let clientID = "par-race-client"
        let take: @Sendable (any Store, Int) throws -> Bool = { store, round in
            try store.writeOne {
                try $0.takePushedRequest(reference: "race-\(round)", clientID: clientID, now: referenceTime)
            } != nil
        }
        let rounds = try races.race(
            setUp: { store, round in
                if round == 0 {
                    var client = StoreFixtures.client()
                    client.id = clientID
                    try store.writeOne { try $0.insert(client) }
                }
                let pushed = PushedAuthorizationRequest(
                    clientID: clientID, parameters: "{}", expiresAt: referenceTime.addingTimeInterval(60))
                try store.writeOne { try $0.insertPushedRequest(pushed, reference: "race-\(round)") }
            }, take)
        for outcomes in rounds {
            #expect(outcomes.count == 2)
            #expect(races.wins(outcomes) { $0 } == 1)
        }
    }
}

/// The checks of this file, named as the tests they are.
enum PushedRequestChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("PushedRequestStoreTests.aRequestIsTakenOnceByItsClientBeforeItExpires") {
                try PushedRequestStoreTests(open: $0).aRequestIsTakenOnceByItsClientBeforeItExpires()
            },
            .init("PushedRequestStoreTests.twoNodesTakingOneRequestOneWins") {
                try PushedRequestStoreTests(open: $0).twoNodesTakingOneRequestOneWins()
            },
        ]
    }
}
