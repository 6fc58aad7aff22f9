import Foundation
import PorticoKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The consents waiting for the person, each with the app's connection that waits for it.
///
/// A consent ends in exactly one way: allowed or denied (by `approve`/`deny`, the terminal, a
/// shell), dropped (the app cancelled or hung up) or timed out. Each has a pipe that a
/// decision writes to, so the connection thread sleeps in `poll` on the app's socket and that
/// pipe until one of them, or the deadline, comes: no busy waiting, no hung app.
final class ConsentDesk: Sendable {
    enum Outcome: Sendable, Equatable {
        case allowed
        case denied
        case cancelled
        case timedOut
    }

    final class Entry: Sendable {
        let id: String
        let requestID: String
        let consent: CompanionConsent
        let decision = Mutex<Outcome?>(nil)
        let wakeRead: Int32
        let wakeWrite: Int32

        init(id: String, requestID: String, consent: CompanionConsent, pipe: (Int32, Int32)) {
            self.id = id
            self.requestID = requestID
            self.consent = consent
            wakeRead = pipe.0
            wakeWrite = pipe.1
        }

        /// Records `outcome` unless another came first; true when this one counted.
        func settle(_ outcome: Outcome) -> Bool {
            let first = decision.withLock { current in
                guard current == nil else { return false }
                current = outcome
                return true
            }
            if first {
                var byte: UInt8 = 1
                _ = write(wakeWrite, &byte, 1)
            }
            return first
        }

        deinit {
            close(wakeRead)
            close(wakeWrite)
        }
    }

    private let entries = Mutex<[Entry]>([])
    private let counter = Atomic<Int>(0)
    /// Told of each new consent (the terminal asks then).
    let onAdded: Mutex<(@Sendable (Entry) -> Void)?> = Mutex(nil)

    /// Adds a consent; nil when the pipe cannot be made.
    func add(_ consent: CompanionConsent, requestID: String) -> Entry? {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { return nil }
        _ = fcntl(descriptors[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptors[1], F_SETFD, FD_CLOEXEC)
        let number = counter.add(1, ordering: .relaxed).newValue
        let entry = Entry(
            id: String(number), requestID: requestID, consent: consent, pipe: (descriptors[0], descriptors[1]))
        entries.withLock { $0.append(entry) }
        onAdded.withLock { $0 }?(entry)
        return entry
    }

    /// Waits for `entry`'s outcome until `deadline`, watching the app's `channel` (a hang-up
    /// or any further message is the app's cancel); removes the entry in every case.
    func wait(for entry: Entry, watching channel: CompanionChannel, until deadline: ContinuousClock.Instant) -> Outcome
    {
        defer { entries.withLock { $0.removeAll { $0 === entry } } }
        while true {
            if let outcome = entry.decision.withLock({ $0 }) { return outcome }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                if entry.settle(.timedOut) { return .timedOut }
                continue
            }
            var watched = [
                pollfd(fd: channel.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: entry.wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let milliseconds = Int32(min(remaining.components.seconds * 1000 + 1, 60_000))
            let ready = poll(&watched, 2, milliseconds)
            if ready > 0 && watched[0].revents != 0 {
                _ = entry.settle(.cancelled)
            }
        }
    }

    /// Settles the consent `id` as the person decided; false when there is no such consent
    /// (or it already ended).
    func decide(_ id: String, allow: Bool) -> Bool {
        guard let entry = entries.withLock({ $0.first { $0.id == id } }) else { return false }
        return entry.settle(allow ? .allowed : .denied)
    }

    /// Drops the consent of the app's request `requestID`; false when none waits.
    func cancel(requestID: String) -> Bool {
        guard let entry = entries.withLock({ $0.first { $0.requestID == requestID } }) else { return false }
        return entry.settle(.cancelled)
    }

    /// The consents still waiting, oldest first.
    var waiting: [Entry] {
        entries.withLock { $0.filter { entry in entry.decision.withLock { $0 == nil } } }
    }

    /// The waiting consents as `pending` lists them.
    var pending: [CompanionPendingConsent] {
        waiting.map { entry in
            CompanionPendingConsent(
                id: entry.id, clientID: entry.consent.clientID, clientName: entry.consent.clientName,
                kind: entry.consent.kind, scopes: entry.consent.permissions.map(\.name),
                descriptions: entry.consent.permissions.map(\.description))
        }
    }
}
