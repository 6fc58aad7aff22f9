import Foundation
import PorticoStore
import PorticoStoreSQL

/// Lends SQLite connections to threads, one thread per connection at a time.
///
/// `@unchecked Sendable` because it holds non-Sendable ``SQLiteConnection``s: every mutable
/// property is read and written only while `condition` is locked, and a connection is touched
/// by exactly one thread between ``withConnection(_:)``'s checkout and checkin, which is what
/// opening connections with `SQLITE_OPEN_NOMUTEX` requires.
final class SQLiteConnectionPool: @unchecked Sendable {
    private let condition = NSCondition()
    private let strategy: SQLiteConnectionStrategy
    private let waitTimeout: TimeInterval
    private let openConnection: () throws -> SQLiteConnection
    private var idle: [SQLiteConnection] = []
    private var idleByThread: [UInt: SQLiteConnection] = [:]
    private var busyThreads: Set<UInt> = []
    private var openCount = 0
    private var waiters: [UInt64] = []
    private var nextTicket: UInt64 = 0
    private var isClosed = false

    /// How many idle per-thread connections are kept at most.
    static let maximumIdlePerThreadConnections = 64

    init(
        strategy: SQLiteConnectionStrategy, waitTimeout: TimeInterval,
        open: @escaping () throws -> SQLiteConnection
    ) {
        self.strategy = strategy
        self.waitTimeout = waitTimeout
        self.openConnection = open
    }

    /// Hands over a connection opened elsewhere (the one that ran the migrations).
    func adopt(_ connection: SQLiteConnection) {
        condition.lock()
        defer { condition.unlock() }
        openCount += 1
        switch strategy {
        case .perThread: idleByThread[Self.currentThread()] = connection
        case .pool: idle.append(connection)
        }
    }

    /// Runs `body` with a connection that no other thread uses meanwhile.
    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let thread = Self.currentThread()
        let connection = try checkout(thread: thread)
        defer { checkin(connection, thread: thread) }
        return try body(connection)
    }

    /// Runs `body` with the calling thread marked busy but no connection lent, for work on a
    /// connection the pool does not own (the store's writer): a checkout by the same thread
    /// inside `body` is then refused as misuse, as with a connection of the pool's own.
    func withThreadReserved<T>(_ body: () throws -> T) throws -> T {
        let thread = Self.currentThread()
        condition.lock()
        if let refusal = refusal(for: thread) {
            condition.unlock()
            throw refusal
        }
        busyThreads.insert(thread)
        condition.unlock()
        defer {
            condition.lock()
            busyThreads.remove(thread)
            condition.unlock()
        }
        return try body()
    }

    /// Why `thread` may not use the pool now, or nil: the pool is closed, or the thread is
    /// already inside a transaction (a nested one would deadlock or read around it). Call with
    /// `condition` locked.
    private func refusal(for thread: UInt) -> StoreError? {
        if isClosed { return .closed }
        if busyThreads.contains(thread) {
            return .misuse("a transaction was started inside another on the same thread; use the outer one")
        }
        return nil
    }

    /// Closes idle connections now and busy ones when they come back.
    func close() {
        condition.lock()
        isClosed = true
        let closing = idle + Array(idleByThread.values)
        openCount -= closing.count
        idle = []
        idleByThread = [:]
        condition.broadcast()
        condition.unlock()
        _ = closing  // Released here, outside the lock: deinit closes them.
    }

    private func checkout(thread: UInt) throws -> SQLiteConnection {
        condition.lock()
        if let refusal = refusal(for: thread) {
            condition.unlock()
            throw refusal
        }
        switch strategy {
        case .perThread:
            if let connection = idleByThread.removeValue(forKey: thread) {
                busyThreads.insert(thread)
                condition.unlock()
                return connection
            }
        case .pool(let maximum):
            // First come, first served: only the oldest waiter may take a free connection.
            let ticket = nextTicket
            nextTicket &+= 1
            waiters.append(ticket)
            let deadline = Date(timeIntervalSinceNow: waitTimeout)
            while !isClosed && (waiters.first != ticket || (idle.isEmpty && openCount >= max(1, maximum))) {
                if !condition.wait(until: deadline) {
                    waiters.removeAll { $0 == ticket }
                    condition.broadcast()
                    condition.unlock()
                    throw StoreError.conflict("no database connection became free within \(waitTimeout) s")
                }
            }
            waiters.removeAll { $0 == ticket }
            condition.broadcast()
            if isClosed {
                condition.unlock()
                throw StoreError.closed
            }
            if let connection = idle.popLast() {
                busyThreads.insert(thread)
                condition.unlock()
                return connection
            }
        }
        // Open a new connection outside the lock; its slot is reserved meanwhile.
        openCount += 1
        busyThreads.insert(thread)
        condition.unlock()
        do {
            return try openConnection()
        } catch {
            condition.lock()
            openCount -= 1
            busyThreads.remove(thread)
            condition.broadcast()
            condition.unlock()
            throw error
        }
    }

    private func checkin(_ connection: SQLiteConnection, thread: UInt) {
        condition.lock()
        busyThreads.remove(thread)
        // A connection still inside a transaction (a failed rollback) is not lent again.
        if isClosed || connection.isInTransaction {
            openCount -= 1
            condition.broadcast()
            condition.unlock()
            return
        }
        switch strategy {
        case .perThread:
            // Threads that come and go (not the HTTP pool's) would otherwise leave a connection
            // each behind; past the cap a returning connection is closed instead of kept.
            if idleByThread.count < Self.maximumIdlePerThreadConnections || idleByThread[thread] != nil {
                idleByThread[thread] = connection
            } else {
                openCount -= 1
            }
        case .pool: idle.append(connection)
        }
        condition.broadcast()
        condition.unlock()
    }

    /// The calling thread's identity. A dead thread's id may be reused by a new thread, which
    /// then inherits an idle connection: harmless, as the old thread can no longer use it.
    private static func currentThread() -> UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }
}
