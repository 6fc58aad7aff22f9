import Foundation
import PorticoCrypto
import PorticoStore
import Synchronization

/// Delivers the outbox (``OutboxMessage``) through the handler of each message's topic
/// (``OutboxTopicHandler``: back-channel logout now, Shared Signals push later), so that no
/// recipient can hold up another's messages.
///
/// - **A lane per destination**: claimed messages wait in the lane of their destination (a
///   client's backend), and a lane has at most one attempt in flight; several lanes are
///   attempted at once on ``BackChannelLogoutSettings/concurrency`` worker threads. A backend
///   that accepts and never answers holds one worker for one request timeout, never the others.
/// - **Failing destinations rest**: after a failed attempt, the destination's other messages
///   are postponed (``OutboxStorage/postponeOutboxMessage(id:owner:until:)``, no attempt
///   counted) for the same doubling, capped delay as a message's retries, so a backend that
///   keeps failing costs one attempt per rest, not one timeout per message. A success ends the
///   rest. What a node learns is its own; each node rests a destination by itself.
/// - **One node per message, at least once**: a claim leases messages to this dispatcher
///   (``OutboxStorage/claimOutboxMessages(now:leaseUntil:owner:limit:)``), only the lease's owner
///   records the outcome, and a lane holds no more than the attempts that fit in a lease, so a
///   lease never ends while its message still waits here. A 2xx delivers; a failure is retried
///   with exponential backoff and jitter until ``BackChannelLogoutSettings/retryWindow`` has
///   passed since the message was enqueued, then given up. Messages are rows, so a restart
///   loses none, and a node that dies leaves leases that end.
///
/// Threads rather than tasks: each attempt waits on the network, which must not hold a thread
/// of the Swift concurrency pool or the HTTP server. ``stopAndWait(timeout:)`` ends them before
/// the store closes.
final class OutboxDispatcher: Sendable {
    private let store: any Store
    private let handlers: [String: any OutboxTopicHandler]
    private let settings: BackChannelLogoutSettings
    private let now: @Sendable () -> Date
    private let onError: @Sendable (String) -> Void
    /// This dispatcher's name in the leases it takes; unique per process and start.
    private let owner = "deliverer-" + SecureRandom.token(bits: 96)
    private let lanes = Mutex(Lanes())
    private let isStarted = Atomic<Bool>(false)
    private let isStopped = Atomic<Bool>(false)
    /// Wakes the claiming thread early: a worker finished, or stopping.
    private let wake = DispatchSemaphore(value: 0)
    /// One signal per lane entry in ``Lanes/ready``, and one per worker when stopping.
    private let work = DispatchSemaphore(value: 0)
    /// Signalled by each thread as it ends.
    private let finished = DispatchSemaphore(value: 0)

    /// The messages claimed and not yet attempted, by destination, and how destinations fared.
    private struct Lanes {
        /// Claimed messages waiting, per destination, oldest first.
        var waiting: [String: [OutboxMessage]] = [:]
        /// Destinations with waiting messages and no attempt in flight, in the order they are
        /// to be served.
        var ready: [String] = []
        /// Destinations with an attempt in flight.
        var inFlight: Set<String> = []
        /// Destinations resting after failures: until when, and how many failures in a row.
        var resting: [String: (until: Date, failures: Int)] = [:]
        /// Workers waiting for a lane.
        var idleWorkers = 0
    }

    /// Prepares a dispatcher for `handlers` (one per topic); nothing runs until ``start()``.
    init(
        store: any Store, handlers: [any OutboxTopicHandler], settings: BackChannelLogoutSettings,
        now: @escaping @Sendable () -> Date, onError: @escaping @Sendable (String) -> Void
    ) {
        self.store = store
        self.handlers = Dictionary(handlers.map { ($0.topic, $0) }, uniquingKeysWith: { first, _ in first })
        self.settings = settings
        self.now = now
        self.onError = onError
    }

    /// How many threads attempt deliveries.
    private var workerCount: Int { max(1, settings.concurrency) }

    /// The most messages a lane holds: as many attempts as fit in a lease, one timeout each.
    private var laneCapacity: Int {
        let attempts = Int(interval(settings.leaseDuration) / max(interval(settings.requestTimeout), 0.001))
        return max(1, attempts - 1)
    }

    /// Starts the claiming thread and the workers.
    func start() {
        guard !isStarted.exchange(true, ordering: .acquiringAndReleasing) else { return }
        lanes.withLock { $0.idleWorkers = workerCount }
        for index in 0..<workerCount {
            let worker = Thread { [self] in
                OutboundHTTPClient.ignoreBrokenPipesOnThisThread()
                attemptLanes()
                finished.signal()
            }
            worker.name = "portico-outbox-\(index)"
            worker.start()
        }
        let claimer = Thread { [self] in
            claim()
            finished.signal()
        }
        claimer.name = "portico-outbox"
        claimer.start()
    }

    /// Stops every thread and waits (at most `timeout`) for attempts under way to finish, so
    /// that the store can be closed after; messages claimed and not attempted go back at once,
    /// and the message of an attempt cut short is retried later.
    func stopAndWait(timeout: Duration) {
        guard !isStopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        guard isStarted.load(ordering: .acquiring) else { return }
        wake.signal()
        for _ in 0..<workerCount { work.signal() }
        let deadline = DispatchTime.now() + interval(timeout)
        for _ in 0...workerCount where finished.wait(timeout: deadline) == .timedOut { break }
    }

    // MARK: Claiming

    private func claim() {
        let poll = interval(settings.pollInterval)
        var round = 0
        var failing = false
        while !isStopped.load(ordering: .acquiring) {
            var more = false
            do {
                // A read first: an idle provider takes no write lock, only a look every poll.
                let pending = try store.read { try $0.pendingOutboxMessageCount() }
                for handler in handlers.values { handler.pendingCount(pending) }
                if pending > 0 { more = try claimDueMessages() }
                if round % 600 == 0 { try deleteFinishedMessages() }
                failing = false
            } catch {
                // One line per outage (a database away for a minute), not one per poll.
                if !failing { onError("outbox delivery failed: \(error)") }
                failing = true
            }
            round &+= 1
            if !more { _ = wake.wait(timeout: .now() + poll) }
        }
        releaseWaitingMessages()
    }

    /// Claims due messages while workers would otherwise sit idle, and puts each in its lane
    /// (or postpones it); true if more may be due and there is room for them.
    private func claimDueMessages() throws -> Bool {
        let room = lanes.withLock { $0.idleWorkers - $0.ready.count }
        guard room > 0 else { return false }
        let now = now()
        let lease = now.addingTimeInterval(interval(settings.leaseDuration))
        // No more than the idle workers can start: a message never waits long for a thread.
        let limit = min(settings.batchSize, room)
        let batch = try store.transaction {
            try $0.claimOutboxMessages(now: now, leaseUntil: lease, owner: owner, limit: limit)
        }
        var postponed: [(id: String, until: Date)] = []
        var readied = 0
        var released: [String] = []
        lanes.withLock { lanes in
            for message in batch {
                let key = destination(of: message)
                if let rest = lanes.resting[key], rest.until > now {
                    postponed.append((message.id, rest.until))
                    continue
                }
                let waiting = lanes.waiting[key, default: []]
                guard waiting.count < laneCapacity else {
                    // A full lane: given back, due at once, and claimed again once attempts
                    // have made room (its lease could end before its turn came).
                    released.append(message.id)
                    continue
                }
                lanes.waiting[key] = waiting + [message]
                if waiting.isEmpty && !lanes.inFlight.contains(key) {
                    lanes.ready.append(key)
                    readied += 1
                }
            }
        }
        for _ in 0..<readied { work.signal() }
        if !postponed.isEmpty || !released.isEmpty {
            try store.transaction { transaction in
                for message in postponed {
                    try transaction.postponeOutboxMessage(id: message.id, owner: owner, until: message.until)
                }
                for id in released { try transaction.releaseOutboxMessage(id: id, owner: owner) }
            }
        }
        // After a full lane, wait for an attempt to make room rather than claim the rest of its
        // backlog only to give it back too.
        return batch.count == limit && released.isEmpty
    }

    /// The lane key of `message`: its handler's destination, or the message alone.
    private func destination(of message: OutboxMessage) -> String {
        if let destination = handlers[message.topic]?.destination(of: message) {
            return message.topic + "\u{0}" + destination
        }
        return "message\u{0}" + message.id
    }

    /// Gives every claimed, unattempted message back (stopping), due at once for any node.
    private func releaseWaitingMessages() {
        let waiting = lanes.withLock { lanes -> [OutboxMessage] in
            defer {
                lanes.waiting = [:]
                lanes.ready = []
            }
            return lanes.waiting.values.flatMap { $0 }
        }
        guard !waiting.isEmpty else { return }
        do {
            try store.transaction { transaction in
                for message in waiting { try transaction.releaseOutboxMessage(id: message.id, owner: owner) }
            }
        } catch {
            onError("outbox delivery failed: \(error)")
        }
    }

    /// Deletes delivered and given-up messages past their retention, a bounded slice at a time.
    private func deleteFinishedMessages() throws {
        let before = now().addingTimeInterval(-interval(settings.retention))
        _ = try store.transaction { try $0.deleteFinishedOutboxMessages(before: before, limit: 500) }
    }

    // MARK: Attempting

    private func attemptLanes() {
        while true {
            work.wait()
            if isStopped.load(ordering: .acquiring) { return }
            let next = lanes.withLock { lanes -> (key: String, message: OutboxMessage)? in
                guard !lanes.ready.isEmpty else { return nil }
                let key = lanes.ready.removeFirst()
                guard var waiting = lanes.waiting[key], !waiting.isEmpty else { return nil }
                let message = waiting.removeFirst()
                lanes.waiting[key] = waiting.isEmpty ? nil : waiting
                lanes.inFlight.insert(key)
                lanes.idleWorkers -= 1
                return (key, message)
            }
            guard let next else { continue }
            let (outcome, rescheduledAt) = attempt(next.message)
            finish(next.key, after: outcome, rescheduledAt: rescheduledAt)
            wake.signal()
        }
    }

    /// One attempt and its outcome recorded; with when the message is due again after a
    /// failure, if it was rescheduled.
    private func attempt(_ message: OutboxMessage) -> (OutboxAttempt, Date?) {
        let outcome =
            handlers[message.topic]?.attempt(message) ?? .giveUp("no handler for the outbox topic \(message.topic)")
        var rescheduledAt: Date?
        do {
            switch outcome {
            case .delivered:
                if try store.transaction({
                    try $0.markOutboxMessageDelivered(id: message.id, owner: owner, now: now())
                }) {
                    handlers[message.topic]?.recorded(outcome, gaveUp: false, of: message)
                }
            case .retry(let reason):
                rescheduledAt = try retry(message, outcome: outcome, reason: reason)
            case .giveUp(let reason):
                try giveUp(message, outcome: outcome, reason: reason)
            }
        } catch {
            onError("outbox delivery failed: \(error)")
        }
        return (outcome, rescheduledAt)
    }

    /// Frees the lane of `key` after an attempt: after a success its next message is ready; after
    /// a failure the destination rests and its waiting messages are postponed until then: no
    /// earlier than the failed message is due again, so that the destination's messages keep
    /// their order (claims go by due time, then id, and ids such as Shared Signals' `jti` are
    /// time-ordered).
    private func finish(_ key: String, after outcome: OutboxAttempt, rescheduledAt: Date?) {
        let now = now()
        let postponed = lanes.withLock { lanes -> (messages: [OutboxMessage], until: Date) in
            lanes.inFlight.remove(key)
            lanes.idleWorkers += 1
            var postponed: [OutboxMessage] = []
            var until = now
            switch outcome {
            case .retry:
                let failures = (lanes.resting[key]?.failures ?? 0) + 1
                until = now.addingTimeInterval(settings.retryDelay(afterFailedAttempts: failures))
                if let rescheduledAt, rescheduledAt > until { until = rescheduledAt }
                lanes.resting[key] = (until, failures)
                postponed = lanes.waiting.removeValue(forKey: key) ?? []
            case .delivered, .giveUp:
                lanes.resting[key] = nil
            }
            if lanes.waiting[key]?.isEmpty == false {
                lanes.ready.append(key)
                work.signal()
            }
            return (postponed, until)
        }
        guard !postponed.messages.isEmpty else { return }
        do {
            try store.transaction { transaction in
                for message in postponed.messages {
                    try transaction.postponeOutboxMessage(id: message.id, owner: owner, until: postponed.until)
                }
            }
        } catch {
            onError("outbox delivery failed: \(error)")
        }
    }

    /// Schedules `message` again after a failed attempt, or gives it up once the retry window
    /// is over; the last attempt is at the window's end, so attempts span the whole window.
    /// Returns when it is due again; nil when it was given up (or its lease lost).
    private func retry(_ message: OutboxMessage, outcome: OutboxAttempt, reason: String) throws -> Date? {
        let now = now()
        let end = message.createdAt.addingTimeInterval(interval(settings.retryWindow))
        guard now < end else {
            try giveUp(message, outcome: outcome, reason: reason)
            return nil
        }
        let delay = settings.retryDelay(afterFailedAttempts: message.failedAttempts + 1)
        let next = min(now.addingTimeInterval(delay), end)
        if try store.transaction({
            try $0.rescheduleOutboxMessage(id: message.id, owner: owner, nextAttemptAt: next, error: reason)
        }) {
            handlers[message.topic]?.recorded(outcome, gaveUp: false, of: message)
            return next
        }
        return nil
    }

    /// Gives `message` up for good, and says so on stderr.
    private func giveUp(_ message: OutboxMessage, outcome: OutboxAttempt, reason: String) throws {
        if try store.transaction({
            try $0.markOutboxMessageFailed(id: message.id, owner: owner, now: now(), error: reason)
        }) {
            handlers[message.topic]?.recorded(outcome, gaveUp: true, of: message)
            onError("\(message.topic) message \(message.id) given up: \(reason)")
        }
    }

    private func interval(_ duration: Duration) -> TimeInterval {
        BackChannelLogoutSettings.interval(duration)
    }
}
