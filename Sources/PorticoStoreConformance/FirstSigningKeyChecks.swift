import Foundation
import PorticoStore
import Testing

/// The first signing key of an algorithm: stored only where no current key is, never demoting
/// one, and of two nodes making it at once on separate connections exactly one wins.
struct FirstSigningKeyChecks: ConformanceChecks {
    let open: StoreConformance.Opener

    private static func key(_ id: String, algorithm: String) -> StoredSigningKey {
        StoredSigningKey(
            id: id, algorithm: algorithm, privateKeyPEM: "pem-\(id)", isCurrent: true, createdAt: referenceTime)
    }

    func aFirstKeyIsStoredOnlyWhereNoneIsCurrent() throws {
        try withStore { store in
            #expect(
                try store.transaction { try $0.insertSigningKeyIfNoneCurrent(Self.key("first", algorithm: "ES256")) })
            #expect(
                try !store.transaction { try $0.insertSigningKeyIfNoneCurrent(Self.key("second", algorithm: "ES256")) })
            #expect(try store.signingKey(id: "second") == nil)
            #expect(try store.read { try $0.currentSigningKey(algorithm: "ES256") }?.id == "first")
            // Another algorithm, and an algorithm whose only key is retired, take a first key.
            #expect(try store.transaction { try $0.insertSigningKeyIfNoneCurrent(Self.key("rsa", algorithm: "RS256")) })
            try store.transaction { try $0.retireSigningKey(id: "rsa", at: referenceTime) }
            #expect(
                try store.transaction { try $0.insertSigningKeyIfNoneCurrent(Self.key("rsa-2", algorithm: "RS256")) })
            #expect(try store.read { try $0.currentSigningKey(algorithm: "RS256") }?.id == "rsa-2")
            let retired = StoredSigningKey(
                id: "retired", algorithm: "EdDSA", privateKeyPEM: "pem", state: .retired, isCurrent: false,
                createdAt: referenceTime)
            #expect(throws: StoreError.self) { try store.transaction { try $0.insertSigningKeyIfNoneCurrent(retired) } }
        }
    }

    func twoNodesMakingTheFirstKeyAtOnceKeepOne() throws {
        let first = try open()
        defer { first.close() }
        let second = try open()
        defer { second.close() }
        let stores = [first, second]
        for round in 0..<8 {
            let algorithm = "race-\(round)"
            let outcomes = LockedList<Result<Bool, any Error>>()
            let start = StartLine(runners: 2)
            let finished = runOnThreads(2) { index in
                start.wait()
                outcomes.append(
                    Result {
                        try stores[index].transaction { transaction in
                            try transaction.insertSigningKeyIfNoneCurrent(
                                Self.key("\(algorithm)-\(index)", algorithm: algorithm))
                        }
                    })
            }
            #expect(finished, "a racer did not finish")
            // Neither fails (the loser waits for the winner, then does nothing), and one wins.
            #expect(outcomes.all.allSatisfy { (try? $0.get()) != nil }, "round \(round): \(outcomes.all)")
            let wins = outcomes.all.filter { (try? $0.get()) == true }.count
            #expect(wins == 1, "round \(round): \(outcomes.all)")
            let keys = try first.signingKeys().filter { $0.algorithm == algorithm }
            #expect(keys.count == 1 && keys.first?.isCurrent == true, "round \(round): \(keys.map(\.id))")
        }
    }

    static var all: [StoreConformance.Check] {
        [
            .init("FirstSigningKeyTests.aFirstKeyIsStoredOnlyWhereNoneIsCurrent") {
                try FirstSigningKeyChecks(open: $0).aFirstKeyIsStoredOnlyWhereNoneIsCurrent()
            },
            .init("FirstSigningKeyTests.twoNodesMakingTheFirstKeyAtOnceKeepOne") {
                try FirstSigningKeyChecks(open: $0).twoNodesMakingTheFirstKeyAtOnceKeepOne()
            },
        ]
    }
}
