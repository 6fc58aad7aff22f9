import Foundation
import PorticoStore
import PorticoStoreSQL

/// A first-come, first-served lock with a bounded wait.
///
/// The store takes it around every write transaction. SQLite admits one writer at a time
/// anyway; queueing writers here instead of in SQLite's busy handler (which sleeps and polls,
/// 1 ms up to 100 ms, and favours whoever polls at the right moment) hands the write lock over
/// without sleeps and without starving anyone when many threads write at once. The busy
/// timeout still governs waits for writers in other processes (`portico` admin commands).
///
/// `@unchecked Sendable`: all mutable state is accessed only while `condition` is locked.
final class FairLock: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [UInt64] = []
    private var nextTicket: UInt64 = 0
    private var isHeld = false

    /// Runs `body` holding the lock; throws ``StoreError/conflict(_:)`` if the lock does not come
    /// within `timeout` seconds.
    func withLock<T>(timeout: TimeInterval, _ body: () throws -> T) throws -> T {
        try acquire(timeout: timeout)
        defer { release() }
        return try body()
    }

    private func acquire(timeout: TimeInterval) throws {
        condition.lock()
        defer { condition.unlock() }
        let ticket = nextTicket
        nextTicket &+= 1
        queue.append(ticket)
        let deadline = Date(timeIntervalSinceNow: timeout)
        while isHeld || queue.first != ticket {
            if !condition.wait(until: deadline) {
                queue.removeAll { $0 == ticket }
                condition.broadcast()
                throw StoreError.conflict("other writers held the database for more than \(timeout) s")
            }
        }
        queue.removeFirst()
        isHeld = true
    }

    private func release() {
        condition.lock()
        isHeld = false
        condition.broadcast()
        condition.unlock()
    }
}
