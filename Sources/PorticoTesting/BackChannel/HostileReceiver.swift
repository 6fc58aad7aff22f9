import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An app backend that misbehaves on purpose, on a real loopback socket: it accepts connections
/// and then never answers (a tarpit), or answers a huge body, so that tests watch what the
/// provider's outbound requests cost it.
///
/// Each connection is served on a thread of its own; ``stop()`` closes everything.
public final class HostileReceiver: Sendable {
    /// How it treats each connection.
    public enum Behaviour: Sendable {
        /// Accepts, reads what comes, and never answers until stopped.
        case tarpit
        /// Reads the request head, then answers `200 OK` with a body of `bytes` bytes, written as
        /// fast as the peer takes them (``bytesWritten`` counts what the peer took).
        case hugeAnswer(bytes: Int)
    }

    private let listener: Int32
    private let behaviour: Behaviour
    private let state = State()
    /// The port it listens on (127.0.0.1).
    public let port: UInt16

    /// Listens on an ephemeral loopback port and serves connections as `behaviour` says.
    public init(_ behaviour: Behaviour) throws {
        self.behaviour = behaviour
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw HarnessFailure("no socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw HarnessFailure("cannot listen on 127.0.0.1")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        let thread = Thread { [listener, state, behaviour] in
            Self.acceptLoop(listener: listener, state: state, behaviour: behaviour)
        }
        thread.start()
    }

    deinit {
        stop()
    }

    /// The URI to register as a client's back-channel logout URI.
    public var uri: String { "http://127.0.0.1:\(port)/backchannel-logout" }

    /// How many connections it accepted.
    public var connections: Int { state.connections.load(ordering: .acquiring) }

    /// How many bytes of answers the peers took (the kernel's buffers included).
    public var bytesWritten: Int { state.written.load(ordering: .acquiring) }

    /// How many answers ended: written whole, or cut short by the peer closing.
    public var answersEnded: Int { state.ended.load(ordering: .acquiring) }

    /// Stops accepting and closes every connection.
    public func stop() {
        guard !state.stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for descriptor in state.open.withLock({ $0 }) { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    private final class State: Sendable {
        let connections = Atomic<Int>(0)
        let written = Atomic<Int>(0)
        let ended = Atomic<Int>(0)
        let stopped = Atomic<Bool>(false)
        let open = Mutex<[Int32]>([])
    }

    private static func acceptLoop(listener: Int32, state: State, behaviour: Behaviour) {
        while !state.stopped.load(ordering: .acquiring) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if state.stopped.load(ordering: .acquiring) { return }
                continue
            }
            state.connections.add(1, ordering: .acquiringAndReleasing)
            state.open.withLock { $0.append(connection) }
            let thread = Thread {
                serve(connection, state: state, behaviour: behaviour)
                close(connection)
            }
            thread.start()
        }
    }

    private static func serve(_ connection: Int32, state: State, behaviour: Behaviour) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        switch behaviour {
        case .tarpit:
            // Read and drop whatever comes until the peer or ``stop()`` closes.
            while buffer.withUnsafeMutableBytes({ recv(connection, $0.baseAddress, $0.count, 0) }) > 0 {}
        case .hugeAnswer(let bytes):
            var head: [UInt8] = []
            while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
                let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, 1, 0) }
                guard count > 0 else { return }
                head.append(buffer[0])
            }
            let answer = Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(bytes)\r\n\r\n".utf8)
            _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            let chunk = [UInt8](repeating: 0x61, count: 65536)
            var left = bytes
            while left > 0 {
                let sent = chunk.withUnsafeBytes {
                    send(connection, $0.baseAddress, min(left, $0.count), Int32(MSG_NOSIGNAL))
                }
                guard sent > 0 else { break }
                left -= sent
                state.written.add(sent, ordering: .acquiringAndReleasing)
            }
            state.ended.add(1, ordering: .acquiringAndReleasing)
        }
    }
}
