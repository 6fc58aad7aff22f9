import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A companion socket that accepts every connection, counts it, and answers nothing, holding
/// each one open for a long time (`holding`, or until ``release()``) before it hangs up: an
/// agent that is there but never replies, for tests that must show the SDK neither retries
/// nor waits for an answer longer than its own ping allows.
final class SilentAgent: Sendable {
    /// Where it listens.
    let path: URL
    private let listener: Int32
    private let accepted = Mutex<[Int32]>([])
    private let releasedFlag = Atomic<Bool>(false)
    private let endedFlag = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)

    /// Listens at a fresh path in the temporary directory, holding what it accepts for `holding`.
    init(holding: Duration = .seconds(60)) throws {
        path = URL(fileURLWithPath: "/tmp/silent-agent-\(UUID().uuidString.prefix(8)).sock")
        let listener = socket(AF_UNIX, streamSocketType, 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            closeDescriptor(listener)
            throw POSIXError(.EADDRINUSE)
        }
        self.listener = listener
        let deadline = ContinuousClock.now.advanced(by: holding)
        Thread.detachNewThread { [self] in
            defer { stopped.signal() }
            while !releasedFlag.load(ordering: .acquiring) && ContinuousClock.now < deadline {
                var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 50) > 0 else { continue }
                let connection = accept(listener, nil, nil)
                if connection >= 0 { accepted.withLock { $0.append(connection) } }
            }
            // Said before hanging up, so a client that sees the hang-up finds it said.
            endedFlag.store(true, ordering: .releasing)
            accepted.withLock { connections in connections.forEach(closeDescriptor) }
        }
    }

    /// How many connections it has accepted.
    var connections: Int { accepted.withLock { $0.count } }

    /// Whether its wait is over (the hold ran out or ``release()`` ended it) and it hung up.
    var hasEndedItsWait: Bool { endedFlag.load(ordering: .acquiring) }

    /// Ends the wait: hangs up every held connection, closes the socket and removes its file.
    func release() {
        releasedFlag.store(true, ordering: .releasing)
        _ = stopped.wait(timeout: .now() + 10)
        closeDescriptor(listener)
        try? FileManager.default.removeItem(at: path)
    }
}
