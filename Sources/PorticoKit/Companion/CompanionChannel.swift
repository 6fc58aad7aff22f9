import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One connection on the companion's Unix socket, carrying newline-terminated JSON messages.
///
/// Reads wait with `poll` against a deadline, never longer, and stop at
/// ``CompanionProtocol/maximumMessageBytes``; ``shutDown()`` (from any thread) wakes a read
/// that waits, which is how a cancelled task stops waiting at once. Both the app side
/// (``CompanionClient``) and the agent use it.
public final class CompanionChannel: Sendable {
    /// The connected socket.
    public let descriptor: Int32
    private let buffer = LockedState<[UInt8]>([])
    private let closed = LockedState<Bool>(false)
    /// Whether the descriptor is still this channel's; shutDown and close agree under it.
    private let lifetime = LockedState<Bool>(true)

    /// Takes ownership of a connected socket.
    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Connects to the socket at `path`; fails at once when nothing listens there.
    public static func connect(to path: String) throws(CompanionChannelError) -> CompanionChannel {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw .unreachable("the socket path \(path) is too long") }
        #if canImport(Glibc)
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw .system("cannot open a socket: \(String(cString: strerror(errno)))") }
        #if !canImport(Glibc)
            // Apple platforms have no MSG_NOSIGNAL: without SO_NOSIGPIPE an agent that hangs up
            // while the app writes would kill the app with SIGPIPE instead of reading `.closed`.
            var one: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        #endif
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            _ = Self.systemClose(descriptor)
            throw .unreachable("\(path): \(reason)")
        }
        return CompanionChannel(descriptor: descriptor)
    }

    /// The kernel's word on who is at the other end.
    public var peer: PeerCredentials? { PeerCredentials.ofPeer(of: descriptor) }

    /// Sends `message` and its newline.
    public func send(_ message: [UInt8]) throws(CompanionChannelError) {
        guard message.count <= CompanionProtocol.maximumMessageBytes else { throw .tooLarge }
        let bytes = message + [0x0A]
        var written = 0
        while written < bytes.count {
            #if os(Linux)
                let flags = Int32(MSG_NOSIGNAL)
            #else
                let flags: Int32 = 0
            #endif
            let count = bytes[written...].withUnsafeBytes {
                Foundation.send(descriptor, $0.baseAddress, $0.count, flags)
            }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE || errno == ECONNRESET { throw .closed }
                throw .system("cannot send: \(String(cString: strerror(errno)))")
            }
            written += count
        }
    }

    /// The next message (without its newline), waiting until `deadline` at the latest.
    public func receive(until deadline: ContinuousClock.Instant) throws(CompanionChannelError) -> [UInt8] {
        while true {
            if let line = takeLine() {
                guard line.count <= CompanionProtocol.maximumMessageBytes else { throw .tooLarge }
                return line
            }
            guard buffer.withLock({ $0.count }) <= CompanionProtocol.maximumMessageBytes else { throw .tooLarge }
            guard !closed.value else { throw .closed }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw .timedOut }
            let milliseconds = Int32(min(remaining.components.seconds * 1000 + 1, 60_000))
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .system("cannot wait for the socket: \(String(cString: strerror(errno)))")
            }
            if ready == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                if errno == ECONNRESET { throw .closed }
                throw .system("cannot read the socket: \(String(cString: strerror(errno)))")
            }
            if count == 0 { throw .closed }
            buffer.withLock { $0.append(contentsOf: chunk[0..<count]) }
        }
    }

    /// Ends both directions, waking any read in progress; the descriptor stays open until
    /// ``close()``.
    public func shutDown() {
        closed.set()
        // Never after close(): the number may already name another socket of the process.
        lifetime.withLock { open in
            if open { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// Shuts down and closes the socket; idempotent.
    public func close() {
        closed.set()
        lifetime.withLock { open in
            guard open else { return }
            open = false
            _ = shutdown(descriptor, Int32(SHUT_RDWR))
            _ = Self.systemClose(descriptor)
        }
    }

    private func takeLine() -> [UInt8]? {
        buffer.withLock { bytes in
            guard let newline = bytes.firstIndex(of: 0x0A) else { return nil }
            let line = Array(bytes[..<newline])
            bytes.removeSubrange(...newline)
            return line
        }
    }

    static func systemClose(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
            Glibc.close(descriptor)
        #else
            Darwin.close(descriptor)
        #endif
    }
}
