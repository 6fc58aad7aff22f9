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
            .init("ProvedRotationStoreTests.aProvedRotationRecordsTheProofOnlyWhenItRotates") {
                try ProvedRotationStoreTests(open: $0).aProvedRotationRecordsTheProofOnlyWhenItRotates()
            },
            .init("ProvedRotationStoreTests.twoFamiliesRacingWithOneProofOneRotates") {
                try ProvedRotationStoreTests(open: $0).twoFamiliesRacingWithOneProofOneRotates()
            },
        ]
    }
}

/// A rotation with a DPoP proof's first use
/// (``RefreshRotationStorage/rotateRefreshToken(familyID:from:to:clientID:now:expiresAt:proof:)``):
/// both or neither, and of two families racing with one proof exactly one rotates.
struct ProvedRotationStoreTests: ConformanceChecks {
    let open: StoreConformance.Opener

    /// A live bearer family of `client` for `user`, and its token.
    static func family(of user: UserRecord, _ client: Client, in store: any Store) throws -> (RefreshFamily, String) {
        let family = RefreshFamily(
            clientID: client.id, userID: user.id, scopes: ["openid"], authTime: referenceTime, createdAt: referenceTime)
        let token = RefreshToken.mint(familyID: family.id)
        try store.transaction {
            try $0.insert(family, token: token, expiresAt: referenceTime.addingTimeInterval(86_400))
        }
        return (family, token)
    }

    /// Rotates `token` of `family` for `clientID` with the proof `jti` of one key.
    static func rotate(_ family: RefreshFamily, _ token: String, jti: String, clientID: String, in store: any Store)
        throws -> ProvedRotation
    {
        let now = referenceTime.addingTimeInterval(10)
        return try store.writeOne {
            try $0.rotateRefreshToken(
                familyID: family.id, from: SecretHash.digest(token),
                to: SecretHash.digest(RefreshToken.mint(familyID: family.id)), clientID: clientID, now: now,
                expiresAt: now.addingTimeInterval(86_400),
                proof: DPoPProofUse(keyThumbprint: "key-a", jti: jti, expiresAt: now.addingTimeInterval(60)))
        }
    }

    /// The hash of `family`'s current token.
    static func current(_ family: RefreshFamily, in store: any Store) throws -> [UInt8]? {
        try store.read { try $0.refreshTokenState(familyID: family.id) }?.currentTokenHash
    }

    func aProvedRotationRecordsTheProofOnlyWhenItRotates() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let (family, token) = try Self.family(of: user, client, in: store)
            let until = referenceTime.addingTimeInterval(60)
            // Another client's request: nothing rotated, the proof not recorded.
            let other = try Self.rotate(family, token, jti: "p1", clientID: "someone-else", in: store)
            guard case .unchanged = other else {
                Issue.record("another client's rotation: \(other)")
                return
            }
            #expect(try Self.current(family, in: store) == SecretHash.digest(token))
            // A proof used before: nothing rotated.
            #expect(try store.writeOne { try $0.recordDPoPProof(keyThumbprint: "key-a", jti: "p2", expiresAt: until) })
            let replayed = try Self.rotate(family, token, jti: "p2", clientID: client.id, in: store)
            guard case .proofReplayed = replayed else {
                Issue.record("a replayed proof: \(replayed)")
                return
            }
            #expect(try Self.current(family, in: store) == SecretHash.digest(token))
            // p1 was left unused: it rotates now, and is then used.
            let fresh = try Self.rotate(family, token, jti: "p1", clientID: client.id, in: store)
            guard case .rotated(let record) = fresh else {
                Issue.record("a fresh proof: \(fresh)")
                return
            }
            #expect(record.family.id == family.id)
            #expect(try Self.current(family, in: store) != SecretHash.digest(token))
            #expect(
                try !store.writeOne { try $0.recordDPoPProof(keyThumbprint: "key-a", jti: "p1", expiresAt: until) })
        }
    }

    func twoFamiliesRacingWithOneProofOneRotates() throws {
        let races = RaceChecks(open: open)
        let people = LockedList<(UserRecord, Client)>()
        let families = LockedList<(RefreshFamily, String)>()
        let claims = LockedList<Int>()
        let rounds = try races.race(
            setUp: { store, round in
                if round == 0 { people.append(try StoreFixtures.userAndClient(in: store)) }
                let (user, client) = people.all[0]
                families.append(try Self.family(of: user, client, in: store))
                families.append(try Self.family(of: user, client, in: store))
            },
            { store, round in
                // Each racer takes one of the round's two families.
                let taken = claims.appendCounting(round)
                let (family, token) = families.all[round * 2 + taken - 1]
                return try Self.rotate(family, token, jti: "race-\(round)", clientID: family.clientID, in: store)
            })
        for outcomes in rounds {
            #expect(outcomes.count == 2)
            #expect(races.wins(outcomes) { if case .rotated = $0 { true } else { false } } == 1)
            #expect(races.wins(outcomes) { if case .proofReplayed = $0 { true } else { false } } == 1)
        }
    }
}
