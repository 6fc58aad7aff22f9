import Foundation
import PorticoCrypto

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP connection (TLS for https) to one address that ``OutboundAddressPolicy`` allowed, for
/// one request of the provider's own: connecting gives up after its own short timeout, and
/// every read and write after the deadline of the whole exchange, so a peer that accepts and
/// never answers, or answers a byte at a time, holds it no longer than that.
final class OutboundConnection {
    /// Why connecting, sending or receiving failed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let descriptor: Int32
    private let deadline: ContinuousClock.Instant
    private var tls: TLSClientSession?

    /// Connects to `address` within `connectTimeout` (and before `deadline`), then for https
    /// runs the TLS handshake for `host` (whose certificate must name it).
    init(
        to address: OutboundResolver.Address, host: String, useTLS: Bool, connectTimeout: Duration,
        deadline: ContinuousClock.Instant, trustedCertificatesFile: String?
    ) throws {
        self.deadline = deadline
        #if canImport(Glibc)
            let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let kind = SOCK_STREAM
        #endif
        descriptor = socket(address.family, kind, 0)
        guard descriptor >= 0 else { throw Failure(description: "no socket: \(Self.errorText())") }
        do {
            try connect(to: address, within: min(connectTimeout, deadline - .now))
            if useTLS {
                try applyDeadline()
                let session = try TLSClientSession(
                    fileDescriptor: descriptor, serverName: host, trustedCertificatesFile: trustedCertificatesFile)
                try session.handshake()
                tls = session
            }
        } catch {
            close(descriptor)
            throw error
        }
    }

    deinit {
        tls?.close()
        close(descriptor)
    }

    /// Sends all of `bytes` before the deadline.
    func send(_ bytes: [UInt8]) throws {
        try applyDeadline()
        if let tls {
            do { try tls.write(bytes) } catch { throw Failure(description: "\(error)") }
            return
        }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { buffer in
                Glibc.send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw Failure(description: "sending failed: \(Self.errorText())") }
            offset += sent
            try applyDeadline()
        }
    }

    /// Up to `maximum` bytes as they arrive, before the deadline; empty when the peer closed.
    func receive(maximum: Int) throws -> [UInt8] {
        try applyDeadline()
        if let tls {
            do {
                return try tls.read(maximum: maximum)
            } catch {
                // A read that ran into the deadline is a peer that did not answer in time.
                throw Failure(description: ContinuousClock.now >= deadline ? "no answer in time" : "\(error)")
            }
        }
        var buffer = [UInt8](repeating: 0, count: max(1, maximum))
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else {
            throw Failure(description: errno == EAGAIN ? "no answer in time" : "receiving failed: \(Self.errorText())")
        }
        return Array(buffer.prefix(count))
    }

    /// Connects without blocking longer than `timeout`, then makes the socket blocking again.
    private func connect(to address: OutboundResolver.Address, within timeout: Duration) throws {
        guard timeout > .zero else { throw Failure(description: "no time left to connect to \(address.text)") }
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        var storage = address.storage
        let started = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, address.length) }
        }
        if started != 0 {
            guard errno == EINPROGRESS else {
                throw Failure(description: "connecting to \(address.text) failed: \(Self.errorText())")
            }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&waiting, 1, Self.milliseconds(timeout))
            guard ready > 0 else {
                throw Failure(description: "connecting to \(address.text) took longer than \(timeout)")
            }
            var problem: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &problem, &length)
            guard problem == 0 else {
                throw Failure(
                    description: "connecting to \(address.text) failed: \(String(cString: strerror(problem)))")
            }
        }
        _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK)
    }

    /// Bounds the next blocking read or write by what is left until the deadline.
    private func applyDeadline() throws {
        let left = deadline - .now
        guard left > .zero else { throw Failure(description: "no answer in time") }
        let milliseconds = max(1, Self.milliseconds(left))
        var value = timeval(tv_sec: Int(milliseconds / 1000), tv_usec: suseconds_t(milliseconds % 1000) * 1000)
        let size = socklen_t(MemoryLayout<timeval>.size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, size)
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    private static func errorText() -> String {
        String(cString: strerror(errno))
    }
}
