import Foundation
import PorticoStore
import Testing

/// Two requests racing on separate connections (two stores on one database, as two nodes
/// would have): of two redemptions of one code exactly one wins (the provider's policy checks
/// race rotations of one refresh token and polls of one approved device code with ``race(setUp:_:)``). Each race is run several times so that the
/// two really overlap on some of them; none of them asserts a timing.
public struct RaceChecks: ConformanceChecks {
    /// Opens a new store on the database under test.
    public let open: StoreConformance.Opener

    /// Races on the database `open` opens stores on (public for the provider's policy races).
    public init(open: @escaping StoreConformance.Opener) {
        self.open = open
    }

    /// How many times each race is run.
    private static let rounds = 8

    /// Runs `attempt` at once on two threads, each with a store of its own, for every round,
    /// and returns the outcomes of each round.
    public func race<T: Sendable>(
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
    public func wins<T>(_ outcomes: [Result<T, any Error>], _ isWin: (T) -> Bool) -> Int {
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

    static var all: [StoreConformance.Check] {
        [
            .init("Races.twoRedemptionsOfOneCodeOneWins") { try RaceChecks(open: $0).twoRedemptionsOfOneCodeOneWins() }
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
