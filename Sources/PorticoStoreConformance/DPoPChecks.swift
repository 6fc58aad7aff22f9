import Foundation
import PorticoStore
import Testing

/// The DPoP storage (``DPoPStorage``) on every backend: a proof's `jti` is accepted once per
/// key, also when two nodes race on it, and forgotten by the purge once its window has passed;
/// a refresh family bound to a key keeps its first key and is left alone by the one-step
/// rotation, which rotates bearer families only.
struct DPoPStoreTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func aProofIsAcceptedOncePerKeyAndPurgedAfterItsWindow() throws {
        try withStore { store throws in
            let until = referenceTime.addingTimeInterval(120)
            #expect(try store.writeOne { try $0.recordDPoPProof(keyThumbprint: "key-a", jti: "j1", expiresAt: until) })
            #expect(
                try !store.writeOne { try $0.recordDPoPProof(keyThumbprint: "key-a", jti: "j1", expiresAt: until) })
            // Another key's proof with the same jti is another proof.
            #expect(try store.writeOne { try $0.recordDPoPProof(keyThumbprint: "key-b", jti: "j1", expiresAt: until) })
            // A replay refused inside a transaction that then rolls back leaves the first record.
            struct Rollback: Error {}
            #expect(throws: Rollback.self) {
                try store.transaction { transaction throws in
                    #expect(try !transaction.recordDPoPProof(keyThumbprint: "key-a", jti: "j1", expiresAt: until))
                    throw Rollback()
                }
            }
            #expect(
                try !store.writeOne { try $0.recordDPoPProof(keyThumbprint: "key-a", jti: "j1", expiresAt: until) })
            #expect(try store.purgeExpired(now: until.addingTimeInterval(-1)).dpopProofs == 0)
            #expect(try store.purgeExpired(now: until).dpopProofs == 2)
            #expect(try store.writeOne { try $0.recordDPoPProof(keyThumbprint: "key-a", jti: "j1", expiresAt: until) })
        }
    }

    func aBoundFamilyKeepsItsFirstKeyAndIsNotRotatedInOneStep() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let family = RefreshFamily(
                clientID: client.id, userID: user.id, scopes: ["openid"], authTime: referenceTime,
                createdAt: referenceTime)
            let token = RefreshToken.mint(familyID: family.id)
            try store.transaction { transaction throws in
                try transaction.insert(family, token: token, expiresAt: referenceTime.addingTimeInterval(86_400))
                #expect(try transaction.boundKey(refreshFamilyID: family.id) == nil)
                try transaction.bindRefreshFamily(family.id, toKey: "key-a")
                try transaction.bindRefreshFamily(family.id, toKey: "key-b")
            }
            #expect(try store.read { try $0.boundKey(refreshFamilyID: family.id) } == "key-a")
            let now = referenceTime.addingTimeInterval(10)
            let rotated = try store.writeOne {
                try $0.rotateRefreshToken(
                    familyID: family.id, from: SecretHash.digest(token),
                    to: SecretHash.digest(RefreshToken.mint(familyID: family.id)), clientID: client.id, now: now,
                    expiresAt: now.addingTimeInterval(86_400))
            }
            #expect(rotated == nil)
        }
    }

    func twoNodesRecordingOneProofOneWins() throws {
        let races = RaceChecks(open: open)
        let record: @Sendable (any Store, Int) throws -> Bool = { store, round in
            try store.writeOne {
                try $0.recordDPoPProof(
                    keyThumbprint: "key", jti: "race-\(round)", expiresAt: referenceTime.addingTimeInterval(120))
            }
        }
        let rounds = try races.race(setUp: { _, _ in }, record)
        for outcomes in rounds {
            #expect(outcomes.count == 2)
            #expect(races.wins(outcomes) { $0 } == 1)
        }
    }
}

/// The checks of this file, named as the tests they are.
enum DPoPChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("DPoPStoreTests.aProofIsAcceptedOncePerKeyAndPurgedAfterItsWindow") {
                try DPoPStoreTests(open: $0).aProofIsAcceptedOncePerKeyAndPurgedAfterItsWindow()
            },
            .init("DPoPStoreTests.aBoundFamilyKeepsItsFirstKeyAndIsNotRotatedInOneStep") {
                try DPoPStoreTests(open: $0).aBoundFamilyKeepsItsFirstKeyAndIsNotRotatedInOneStep()
            },
            .init("DPoPStoreTests.twoNodesRecordingOneProofOneWins") {
                try DPoPStoreTests(open: $0).twoNodesRecordingOneProofOneWins()
            },
        ]
    }
}
