import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The whole-request deadline: a client has `limit` to send a whole request (request line,
/// headers and body), counted from when its connection opened or its previous answer was sent.
///
/// libmicrohttpd's connection timeout restarts with every byte, so a client that trickles a
/// byte every few seconds (slowloris) would hold its connection, and the memory and the
/// per-client slot that go with it, for ever. A sweeper closes any connection still receiving
/// past its deadline by shutting its socket down, which libmicrohttpd then sees as the client
/// leaving. A request being answered (its handler running or suspended) is not receiving.
final class RequestDeadlines: Sendable {
    /// One connection's clock: since when it has been receiving a request (0 while answering).
    final class Entry: Sendable {
        let descriptor: Int32
        let receivingSince = Atomic<UInt64>(0)

        init(descriptor: Int32) {
            self.descriptor = descriptor
        }
    }

    private let limitNanoseconds: UInt64
    /// Open connections; an entry leaves before libmicrohttpd closes its socket (its close
    /// notice comes first), so under this lock a descriptor is never one reused by another.
    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])
    private let timer = Mutex<RepeatingTimer?>(nil)

    /// Deadlines of `limit` (at least 10 ms), checked a few times per `limit` (at most once a second).
    init(limit: Duration) {
        limitNanoseconds = RepeatingTimer.nanoseconds(limit)
        let timer = RepeatingTimer(
            label: "portico.request-deadlines", quarterOf: limitNanoseconds, longest: 1_000_000_000
        ) { [weak self] in self?.sweep() }
        self.timer.withLock { $0 = timer }
        timer.start()
    }

    /// Stops the sweeper; connections are left to libmicrohttpd.
    func stop() {
        timer.withLock { $0?.cancel() }
    }

    // MARK: - libmicrohttpd notices

    /// A connection opened: its first request's clock starts. Returns what to keep as its
    /// socket context.
    func opened(_ connection: OpaquePointer) -> UnsafeMutableRawPointer {
        let entry = Entry(descriptor: portico_mhd_connection_fd(connection))
        entry.receivingSince.store(RequestLogger.now(), ordering: .relaxed)
        entries.withLock { $0[ObjectIdentifier(entry)] = entry }
        return Unmanaged.passRetained(entry).toOpaque()
    }

    /// A connection closed (its socket is still open): forget it.
    func closed(_ context: UnsafeMutableRawPointer) {
        let entry = Unmanaged<Entry>.fromOpaque(context).takeRetainedValue()
        _ = entries.withLock { $0.removeValue(forKey: ObjectIdentifier(entry)) }
    }

    /// The request on `connection` is whole and being answered: its clock stops.
    func answering(_ connection: OpaquePointer) {
        Self.entry(of: connection)?.receivingSince.store(0, ordering: .relaxed)
    }

    /// The answer on `connection` is done: the next request's clock starts.
    func answered(_ connection: OpaquePointer) {
        Self.entry(of: connection)?.receivingSince.store(RequestLogger.now(), ordering: .relaxed)
    }

    private static func entry(of connection: OpaquePointer) -> Entry? {
        portico_mhd_connection_context(connection).map { Unmanaged<Entry>.fromOpaque($0).takeUnretainedValue() }
    }

    // MARK: - Sweeping

    private func sweep() {
        let now = RequestLogger.now()
        entries.withLock { entries in
            for entry in entries.values {
                let since = entry.receivingSince.load(ordering: .relaxed)
                guard since != 0, now &- since > limitNanoseconds, entry.descriptor >= 0 else { continue }
                entry.receivingSince.store(0, ordering: .relaxed)
                shutdown(entry.descriptor, Int32(SHUT_RDWR))
            }
        }
    }
}
