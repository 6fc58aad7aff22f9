import Foundation
import PorticoStore
import Synchronization
import Testing

@testable import PorticoStorePostgres

/// A throttle counts, then inserts. Two nodes doing that at once for one key each saw the
/// count before the other's insert, and a guesser spread over nodes got an extra try; the key
/// lock makes the second node wait for the first's commit and count its attempt.
@Suite(TestServer.required) struct ThrottleKeyLockTests {
    @Test func aSecondNodeCountingTheSameKeyWaitsForTheFirstsAttempt() throws {
        let database = try TemporaryDatabase()
        let first = try database.store(poolSize: 1)
        defer { first.close() }
        let second = try database.store(poolSize: 1)
        defer { second.close() }
        let key = "sign-in:account:ann@example.com"
        let now = Date()
        let counted = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        try first.transaction { transaction in
            try transaction.lockThrottleKey(key)
            #expect(try transaction.throttleAttempts(key: key, since: now.addingTimeInterval(-60)).isEmpty)
            // The other node counts the same key while this one has counted and not inserted.
            Thread {
                let count = try? second.transaction { other in
                    try other.lockThrottleKey(key)
                    return try other.throttleAttempts(key: key, since: now.addingTimeInterval(-60)).count
                }
                counted.withLock { $0 = count }
                done.signal()
            }.start()
            Thread.sleep(forTimeInterval: 0.5)
            try transaction.insert(ThrottleAttempt(key: key, attemptedAt: now, expiresAt: now.addingTimeInterval(60)))
        }
        done.wait()
        #expect(counted.withLock { $0 } == 1)
        // Another key is not held by it.
        try first.transaction { transaction in
            try transaction.lockThrottleKey(key)
            let other = try second.transaction { other -> Int in
                try other.lockThrottleKey("sign-in:address:192.0.2.0")
                return try other.throttleAttempts(key: "sign-in:address:192.0.2.0", since: now).count
            }
            #expect(other == 0)
        }
    }
}
