import Foundation
import PorticoKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The agent's end of the companion socket: a `0600` Unix socket in a `0700` directory, a
/// thread per connection (at most ``maximumConnections``), each peer's user checked with
/// `SO_PEERCRED` before a byte of its request is read.
final class AgentServer: Sendable {
    static let maximumConnections = 64

    let path: String
    let broker: CompanionBroker
    let account: AgentAccount
    let desk: ConsentDesk
    let consentTimeout: Duration
    let issuer: String
    let log: @Sendable (String) -> Void
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    private let connections = Atomic<Int>(0)

    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    init(
        path: URL, issuer: String, broker: CompanionBroker, account: AgentAccount, desk: ConsentDesk,
        consentTimeout: Duration, log: @escaping @Sendable (String) -> Void
    ) throws(StartError) {
        self.path = path.path
        self.issuer = issuer
        self.broker = broker
        self.account = account
        self.desk = desk
        self.consentTimeout = consentTimeout
        self.log = log
        listener = try Self.listen(at: path)
    }

    /// Prepares the directory, clears a stale socket, binds and listens.
    static func listen(at url: URL) throws(StartError) -> Int32 {
        let directory = url.deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StartError(
                description: "cannot create the socket directory \(directory): \(error.localizedDescription)")
        }
        var status = stat()
        guard lstat(directory, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw StartError(description: "\(directory) is not a directory")
        }
        guard status.st_uid == geteuid() else {
            throw StartError(description: "the socket directory \(directory) belongs to another user")
        }
        if status.st_mode & 0o777 != 0o700 { _ = chmod(directory, 0o700) }
        let path = url.path
        if lstat(path, &status) == 0 {
            guard (status.st_mode & S_IFMT) == S_IFSOCK, status.st_uid == geteuid() else {
                throw StartError(description: "\(path) exists and is not this user's socket; remove it")
            }
            if let channel = try? CompanionChannel.connect(to: path) {
                channel.close()
                throw StartError(description: "another agent already serves this issuer at \(path)")
            }
            unlink(path)
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw StartError(description: "cannot open a socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw StartError(description: "the socket path \(path) is too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        // Made 0600 from the start (no moment where the socket is wider), then set exactly.
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        umask(previous)
        guard bound == 0, chmod(path, 0o600) == 0, Glibc.listen(descriptor, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw StartError(description: "cannot listen at \(path): \(reason)")
        }
        return descriptor
    }

    /// Accepts connections until ``stop()``; each runs on its own thread.
    func run() {
        while !stopped.load(ordering: .acquiring) {
            let descriptor = accept(listener, nil, nil)
            if descriptor < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if stopped.load(ordering: .acquiring) { break }
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                    Thread.sleep(forTimeInterval: 0.05)
                    continue
                }
                break
            }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            let channel = CompanionChannel(descriptor: descriptor)
            guard connections.add(1, ordering: .relaxed).newValue <= Self.maximumConnections else {
                connections.subtract(1, ordering: .relaxed)
                try? channel.send(CompanionReply.failure("busy", "too many connections").encoded())
                channel.close()
                continue
            }
            Thread.detachNewThread { [self] in
                defer {
                    channel.close()
                    connections.subtract(1, ordering: .relaxed)
                }
                serve(channel)
            }
        }
    }

    /// Stops accepting and removes the socket; waiting consents end as their apps time out.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        unlink(path)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// One connection: the peer's user, one request, one answer.
    func serve(_ channel: CompanionChannel) {
        guard PeerCredentials.admits(channel.peer) else {
            let peer = channel.peer.map { "uid \($0.userID), pid \($0.processID)" } ?? "an unknown peer"
            log("refused a connection from \(peer): not this user")
            try? channel.send(CompanionReply.failure("forbidden", "only the agent's own user may connect").encoded())
            return
        }
        let line: [UInt8]
        do {
            line = try channel.receive(until: ContinuousClock.now.advanced(by: CompanionProtocol.requestArrivalTimeout))
        } catch .tooLarge {
            try? channel.send(
                CompanionReply.failure("too_large", CompanionProtocolError.tooLarge.description).encoded())
            return
        } catch {
            return
        }
        let request: CompanionRequest
        do { request = try CompanionRequest(decoding: line) } catch {
            try? channel.send(CompanionReply.failure(error.code, error.description).encoded())
            return
        }
        guard let reply = answer(request, on: channel) else { return }
        try? channel.send(reply.encoded())
    }

    /// The answer to `request`; nil when the app went away and nobody is left to answer.
    func answer(_ request: CompanionRequest, on channel: CompanionChannel) -> CompanionReply? {
        switch request.operation {
        case .ping:
            var reply = CompanionReply()
            reply.issuer = issuer
            reply.signedIn = account.isSignedIn
            reply.name = account.personName
            return reply
        case .pending:
            var reply = CompanionReply()
            reply.pending = desk.pending
            return reply
        case .approve, .deny:
            guard desk.decide(request.id ?? "", allow: request.operation == .approve) else {
                return .failure("unknown_consent", "no consent \(request.id ?? "") is waiting")
            }
            return CompanionReply()
        case .cancel:
            _ = desk.cancel(requestID: request.requestID ?? "")
            return CompanionReply()
        case .authorize:
            return authorize(request, on: channel)
        }
    }
}
