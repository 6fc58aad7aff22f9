import Foundation
import PorticoServer
import PorticoStore
import Testing

/// Two requests racing on separate connections (two stores on one database, as two nodes
/// would have): of two redemptions of one code, two rotations of one refresh token, two polls
/// of one approved device code, exactly one wins. Each race is run several times so that the
/// two really overlap on some of them; none of them asserts a timing.
struct RaceChecks: ConformanceChecks {
    let open: StoreConformance.Opener

    /// How many times each race is run.
    private static let rounds = 8

    /// Runs `attempt` at once on two threads, each with a store of its own, for every round,
    /// and returns the outcomes of each round.
    func race<T: Sendable>(
        setUp: (any Store, Int) throws -> Void, _ attempt: @escaping @Sendable (any Store, Int) throws -> T
    ) throws -> [[Result<T, any Error>]] {
        let first = try open()
        defer { first.close() }
        let second = try open()
        defer { second.close() }
        let stores = [first, second]
        var rounds: [[Result<T, any Error>]] = []
        for round in 0..<Self.rounds {
            try setUp(first, round)
            let outcomes = LockedList<Result<T, any Error>>()
            let start = StartLine(runners: 2)
            let finished = runOnThreads(2) { index in
                start.wait()
                outcomes.append(Result { try attempt(stores[index], round) })
            }
            #expect(finished, "a racer did not finish")
            rounds.append(outcomes.all)
        }
        return rounds
    }

    /// Counts the outcomes `isWin` says won, failing the check on any error.
    func wins<T>(_ outcomes: [Result<T, any Error>], _ isWin: (T) -> Bool) -> Int {
        outcomes.reduce(0) { count, outcome in
            switch outcome {
            case .success(let value): return count + (isWin(value) ? 1 : 0)
            case .failure(let error):
                Issue.record("a racer failed: \(error)")
                return count
            }
        }
    }

    func twoRedemptionsOfOneCodeOneWins() throws {
        let (user, client) = try withStore { try StoreFixtures.userAndClient(in: $0) }
        let rounds = try race(
            setUp: { store, round in
                try store.insert(StoreFixtures.code("race-\(round)", user: user, client: client))
            },
            { store, round in try store.redeemAuthorizationCode("race-\(round)", now: referenceTime) })
        for outcomes in rounds {
            #expect(outcomes.count == 2)
            #expect(wins(outcomes) { if case .redeemed = $0 { true } else { false } } == 1)
        }
    }

    func twoRotationsOfOneRefreshTokenOneWins() throws {
        let (user, client) = try withStore { try StoreFixtures.userAndClient(in: $0) }
        let families = LockedList<(RefreshFamily, String)>()
        let expiry = referenceTime.addingTimeInterval(86_400)
        let rounds = try race(
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
            #expect(wins(outcomes) { if case .rotated = $0 { true } else { false } } == 1)
        }
    }

    func twoPollsOfOneApprovedDeviceCodeOneWins() throws {
        let (user, client) = try withStore { try StoreFixtures.userAndClient(in: $0) }
        let rounds = try race(
            setUp: { store, round in
                let userCode = "RACE\(round)XYZ"
                try store.insert(
                    DeviceAuthorization(
                        deviceCode: "device-\(round)", userCode: userCode, clientID: client.id, scopes: ["openid"],
                        createdAt: referenceTime, expiresAt: referenceTime.addingTimeInterval(600)))
                #expect(
                    try store.approveDeviceAuthorization(
                        userCode: userCode, userID: user.id, authTime: referenceTime, now: referenceTime))
            },
            { store, round in
                try store.transaction {
                    try DevicePollPolicy().poll(
                        deviceCode: "device-\(round)", in: $0, now: referenceTime.addingTimeInterval(10))
                }
            })
        for outcomes in rounds {
            #expect(outcomes.count == 2)
            #expect(wins(outcomes) { if case .approved = $0 { true } else { false } } == 1)
        }
    }

    static var all: [StoreConformance.Check] {
        [
            .init("Races.twoRedemptionsOfOneCodeOneWins") { try RaceChecks(open: $0).twoRedemptionsOfOneCodeOneWins() },
            .init("Races.twoRotationsOfOneRefreshTokenOneWins") {
                try RaceChecks(open: $0).twoRotationsOfOneRefreshTokenOneWins()
            },
            .init("Races.twoPollsOfOneApprovedDeviceCodeOneWins") {
                try RaceChecks(open: $0).twoPollsOfOneApprovedDeviceCodeOneWins()
            },
        ]
    }
}

/// Holds every runner until all have arrived, so that they start their attempts together.
final class StartLine: @unchecked Sendable {
    // Safe: `arrived` is only touched while `condition` is locked.
    private let condition = NSCondition()
    private let runners: Int
    private var arrived = 0

    init(runners: Int) {
        self.runners = runners
    }

    func wait() {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        if arrived == runners {
            condition.broadcast()
            return
        }
        // Bounded: a runner that never arrives must not hang the suite.
        let deadline = Date().addingTimeInterval(30)
        while arrived < runners && condition.wait(until: deadline) {}
    }
}

/// The provider's refresh policy the checks run, with tokens that live a day.
private let refreshPolicy = RefreshTokenPolicy(tokenLifetime: 86_400, reuseGrace: 30)
