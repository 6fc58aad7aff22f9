import Foundation
import PorticoServer
import PorticoStore
import PorticoStoreConformance
import Testing

/// The refresh-token policy (``RefreshTokenPolicy``) on a backend's primitives: rotation, the
/// token just replaced and its grace step, reuse, expiry, and rotations racing. Moved out of the
/// store conformance suite (which needs no server) because they check the provider's decisions;
/// the names are the ones the checks had there.
struct RefreshTokenTests: ConformanceChecks {
    let open: StoreConformance.Opener

    /// A family with its first token `token(0)`, valid for a day from `referenceTime`.
    private func family(in store: any Store) throws -> RefreshFamily {
        let (user, client) = try StoreFixtures.userAndClient(in: store)
        let family = RefreshFamily(
            clientID: client.id, userID: user.id, scopes: ["openid", "profile"], authTime: referenceTime,
            createdAt: referenceTime)
        try store.insert(family, token: token(0, of: family), expiresAt: referenceTime.addingTimeInterval(86_400))
        return family
    }

    /// A family whose first token was rotated to `token(1)` at `rotatedAt`; `expiry` is the
    /// successor's.
    private func familyRotatedOnce(in store: any Store) throws
        -> (family: RefreshFamily, rotatedAt: Date, expiry: Date)
    {
        let family = try family(in: store)
        let rotatedAt = referenceTime.addingTimeInterval(10)
        let expiry = rotatedAt.addingTimeInterval(86_400)
        _ = try store.transaction {
            try refreshPolicy.rotate(token(0, of: family), in: $0, now: rotatedAt) { _ in token(1, of: family) }
        }
        return (family, rotatedAt, expiry)
    }

    /// Token `number` of `family`, named as minted tokens are.
    private func token(_ number: Int, of family: RefreshFamily) -> String {
        "\(family.id).r\(number)"
    }

    func rotationReplacesTheCurrentToken() throws {
        try withStore { store throws in
            let family = try family(in: store)
            let now = referenceTime.addingTimeInterval(10)
            let expiry = now.addingTimeInterval(86_400)
            #expect(
                try store.read { try RefreshTokenPolicy.token(token(0, of: family), in: $0) }?.issuedAt == referenceTime
            )
            guard
                case .rotated(let rotatedFamily, let successor) = try store.transaction({
                    try refreshPolicy.rotate(token(0, of: family), in: $0, now: now) { _ in token(1, of: family) }
                })
            else {
                Issue.record("a current token must rotate")
                return
            }
            #expect(rotatedFamily == family)
            #expect(successor == (try store.read { try RefreshTokenPolicy.token(token(1, of: family), in: $0) }))
            #expect(successor.issuedAt == now && successor.expiresAt == expiry && successor.rotatedAt == nil)
            let old = try #require(try store.read { try RefreshTokenPolicy.token(token(0, of: family), in: $0) })
            #expect(old.rotatedAt == now)
            #expect(old.familyID == family.id)

            guard
                case .rotated = try store.transaction({
                    try refreshPolicy.rotate(token(1, of: family), in: $0, now: now) { _ in token(2, of: family) }
                })
            else {
                Issue.record("the successor must rotate in turn")
                return
            }
            // Two rotations back: no longer stored at all, and not presented as anything.
            #expect(try store.read { try RefreshTokenPolicy.token(token(0, of: family), in: $0) } == nil)
        }
    }

    func theTokenJustReplacedIsReportedWithItsTime() throws {
        try withStore { store throws in
            let (family, now, expiry) = try familyRotatedOnce(in: store)
            let again = try store.transaction {
                try refreshPolicy.rotate(token(0, of: family), in: $0, now: now.addingTimeInterval(30)) { _ in
                    token(9, of: family)
                }
            }
            #expect(again == .previous(family: family, rotatedAt: now))
            // Nothing changed: the successor is still current, the attempt's token unknown.
            #expect(try store.read { try RefreshTokenPolicy.token(token(1, of: family), in: $0) }?.rotatedAt == nil)
            #expect(try store.read { try RefreshTokenPolicy.token(token(9, of: family), in: $0) } == nil)
        }
    }

    func supersedingReplacesTheUnusedCurrentToken() throws {
        try withStore { store throws in
            let (family, now, expiry) = try familyRotatedOnce(in: store)
            let later = now.addingTimeInterval(5)
            #expect(
                try store.transaction {
                    try refreshPolicy.supersede(
                        familyID: family.id, replacement: token(2, of: family), in: $0, now: later)
                })
            #expect(try store.read { try RefreshTokenPolicy.token(token(2, of: family), in: $0) }?.issuedAt == later)
            #expect(try store.read { try RefreshTokenPolicy.token(token(1, of: family), in: $0) } == nil)
            // The token presented for it stays "the one just replaced", with the first time.
            #expect(
                try store.transaction {
                    try refreshPolicy.rotate(token(0, of: family), in: $0, now: later) { _ in token(3, of: family) }
                }
                    == .previous(family: family, rotatedAt: now))
            // The superseded token coming back is an older token of the family.
            #expect(
                try store.transaction {
                    try refreshPolicy.rotate(token(1, of: family), in: $0, now: later) { _ in token(3, of: family) }
                }
                    == .reused(family: family))
            try store.revokeRefreshFamily(id: family.id, now: later)
            #expect(
                try !store.transaction {
                    try refreshPolicy.supersede(
                        familyID: family.id, replacement: token(4, of: family), in: $0, now: later)
                })
        }
    }

    func anOlderTokenIsReuseAndThenTheFamilyIsRevoked() throws {
        try withStore { store throws in
            let family = try family(in: store)
            let now = referenceTime.addingTimeInterval(10)
            let expiry = now.addingTimeInterval(86_400)
            for number in 0..<3 {
                _ = try store.transaction {
                    try refreshPolicy.rotate(token(number, of: family), in: $0, now: now) { _ in
                        token(number + 1, of: family)
                    }
                }
            }
            #expect(
                try store.transaction { try refreshPolicy.rotate(token(1, of: family), in: $0, now: now) { _ in "x" } }
                    == .reused(family: family))
            // Anything else that names the family is treated alike: only its tokens carry its id.
            #expect(
                try store.transaction { try refreshPolicy.rotate("\(family.id).forged", in: $0, now: now) { _ in "x" } }
                    == .reused(family: family))

            // The provider revokes the family; then even the current token is refused.
            #expect(try store.revokeRefreshFamily(id: family.id, now: now))
            #expect(try store.refreshFamily(id: family.id)?.isRevoked == true)
            guard
                case .revoked = try store.transaction({
                    try refreshPolicy.rotate(token(3, of: family), in: $0, now: now) { _ in token(4, of: family) }
                })
            else {
                Issue.record("a revoked family must not refresh")
                return
            }
        }
    }

    func concurrentRotationsOfOneTokenSucceedOnce() throws {
        try withStore { store throws in
            let family = try family(in: store)
            let outcomes = LockedList<String>()
            let finished = runOnThreads(8) { index in
                do {
                    let result = try store.transaction {
                        try refreshPolicy.rotate(token(0, of: family), in: $0, now: referenceTime) { _ in
                            "\(family.id).next-\(index)"
                        }
                    }
                    switch result {
                    case .rotated: outcomes.append("rotated")
                    case .previous: outcomes.append("previous")
                    default: outcomes.append("other")
                    }
                } catch {
                    outcomes.append("error: \(error)")
                }
            }
            #expect(finished)
            #expect(outcomes.all.filter { $0 == "rotated" }.count == 1)
            #expect(outcomes.all.filter { $0 == "previous" }.count == 7)
        }
    }

    func expiredAndUnknownTokensDoNotRotate() throws {
        try withStore { store throws in
            let family = try family(in: store)
            let late = referenceTime.addingTimeInterval(86_400)
            guard
                case .expired = try store.transaction({
                    try refreshPolicy.rotate(token(0, of: family), in: $0, now: late) { _ in token(1, of: family) }
                })
            else {
                Issue.record("an expired token must not rotate")
                return
            }
            for unknown in ["unknown", "nofamily.r0", ".r0", ""] {
                #expect(
                    try store.transaction {
                        try refreshPolicy.rotate(unknown, in: $0, now: referenceTime) { _ in "r1" }
                    }
                        == .notFound)
                #expect(try store.read { try RefreshTokenPolicy.token(unknown, in: $0) } == nil)
            }
        }
    }
}

/// The one-step rotation as the refresh grant runs it (``RefreshTokenPolicy/rotateInOneStep(_:clientID:in:now:)``),
/// and what the two-step policy then makes of the token it replaced.
struct RefreshRotationTests: ConformanceChecks {
    let open: StoreConformance.Opener

    /// A stored family of `user` and `client` with its first token, valid for a day.
    private func family(_ user: UserRecord, _ client: Client, in store: any Store) throws -> (RefreshFamily, String) {
        let family = RefreshFamily(
            clientID: client.id, userID: user.id, scopes: ["openid", "profile"], authTime: referenceTime,
            createdAt: referenceTime)
        let token = RefreshToken.mint(familyID: family.id)
        try store.transaction {
            try $0.insert(family, token: token, expiresAt: referenceTime.addingTimeInterval(86_400))
        }
        return (family, token)
    }

    func aOneStepRotationLeavesThePresentedTokenTheOneJustReplaced() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let (family, token) = try family(user, client, in: store)
            let now = referenceTime.addingTimeInterval(10)
            #expect(try refreshPolicy.rotateInOneStep(token, clientID: client.id, in: store, now: now) != nil)
            // The presented token is now the one just replaced, as after a two-step rotation.
            let again = try store.transaction {
                try refreshPolicy.rotate(token, in: $0, now: now + 1) { _ in "unused" }
            }
            #expect(again == .previous(family: family, rotatedAt: now))
        }
    }

    /// The provider's path: the one-step rotation, and the two-step one when it changed nothing.
    private enum Path: Sendable, Equatable {
        case oneStep
        case twoStep(RefreshRotation)
    }

    func twoOneStepRotationsOfOneTokenOneWinsAndTheOtherSeesTheGrace() throws {
        let (user, client) = try withStore { try StoreFixtures.userAndClient(in: $0) }
        let families = LockedList<(RefreshFamily, String)>()
        let racing = RaceChecks(open: open)
        let now = referenceTime.addingTimeInterval(1)
        let rounds = try racing.race(
            setUp: { store, _ in families.append(try family(user, client, in: store)) },
            { store, round in
                let (family, token) = families.all[round]
                let expiry = now.addingTimeInterval(86_400)
                if try refreshPolicy.rotateInOneStep(token, clientID: client.id, in: store, now: now) != nil {
                    return Path.oneStep
                }
                return .twoStep(
                    try store.transaction {
                        try refreshPolicy.rotate(token, in: $0, now: now) { _ in RefreshToken.mint(familyID: family.id)
                        }
                    })
            })
        for (round, outcomes) in rounds.enumerated() {
            let family = families.all[round].0
            #expect(outcomes.count == 2)
            #expect(racing.wins(outcomes) { $0 == .oneStep } == 1, "round \(round): exactly one rotates")
            #expect(
                racing.wins(outcomes) { $0 == .twoStep(.previous(family: family, rotatedAt: now)) } == 1,
                "round \(round): the other finds its token the one just replaced")
        }
    }
}

/// Rotations of one refresh token racing on two connections.
struct RefreshRaceTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func twoRotationsOfOneRefreshTokenOneWins() throws {
        let (user, client) = try withStore { try StoreFixtures.userAndClient(in: $0) }
        let families = LockedList<(RefreshFamily, String)>()
        let expiry = referenceTime.addingTimeInterval(86_400)
        let rounds = try RaceChecks(open: open).race(
            setUp: { store, _ in
                let family = RefreshFamily(
                    clientID: client.id, userID: user.id, scopes: ["openid"], authTime: referenceTime,
                    createdAt: referenceTime)
                let token = RefreshToken.mint(familyID: family.id)
                try store.insert(family, token: token, expiresAt: expiry)
                families.append((family, token))
            },
            { store, round in
                let (family, token) = families.all[round]
                return try store.transaction {
                    try refreshPolicy.rotate(token, in: $0, now: referenceTime.addingTimeInterval(1)) { _ in
                        RefreshToken.mint(familyID: family.id)
                    }
                }
            })
        for outcomes in rounds {
            #expect(outcomes.count == 2)
            #expect(RaceChecks(open: open).wins(outcomes) { if case .rotated = $0 { true } else { false } } == 1)
        }
    }
}

/// The policy the checks run with: tokens live a day, the grace is the provider's default.
private let refreshPolicy = RefreshTokenPolicy(tokenLifetime: 86_400, reuseGrace: 30)

/// The instant the fixtures are dated at.
private let referenceTime = StoreFixtures.referenceTime

/// The checks of this file, named as they were in the store conformance suite.
enum RefreshTokenPolicyChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("RefreshTokenTests.rotationReplacesTheCurrentToken") {
                try RefreshTokenTests(open: $0).rotationReplacesTheCurrentToken()
            },
            .init("RefreshTokenTests.theTokenJustReplacedIsReportedWithItsTime") {
                try RefreshTokenTests(open: $0).theTokenJustReplacedIsReportedWithItsTime()
            },
            .init("RefreshTokenTests.supersedingReplacesTheUnusedCurrentToken") {
                try RefreshTokenTests(open: $0).supersedingReplacesTheUnusedCurrentToken()
            },
            .init("RefreshTokenTests.anOlderTokenIsReuseAndThenTheFamilyIsRevoked") {
                try RefreshTokenTests(open: $0).anOlderTokenIsReuseAndThenTheFamilyIsRevoked()
            },
            .init("RefreshTokenTests.concurrentRotationsOfOneTokenSucceedOnce") {
                try RefreshTokenTests(open: $0).concurrentRotationsOfOneTokenSucceedOnce()
            },
            .init("RefreshTokenTests.expiredAndUnknownTokensDoNotRotate") {
                try RefreshTokenTests(open: $0).expiredAndUnknownTokensDoNotRotate()
            },
            .init("RefreshRotationTests.aOneStepRotationLeavesThePresentedTokenTheOneJustReplaced") {
                try RefreshRotationTests(open: $0).aOneStepRotationLeavesThePresentedTokenTheOneJustReplaced()
            },
            .init("RefreshRotationTests.twoOneStepRotationsOfOneTokenOneWinsAndTheOtherSeesTheGrace") {
                try RefreshRotationTests(open: $0).twoOneStepRotationsOfOneTokenOneWinsAndTheOtherSeesTheGrace()
            },
            .init("Races.twoRotationsOfOneRefreshTokenOneWins") {
                try RefreshRaceTests(open: $0).twoRotationsOfOneRefreshTokenOneWins()
            },
        ]
    }
}
