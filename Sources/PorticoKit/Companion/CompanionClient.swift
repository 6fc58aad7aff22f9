import Foundation

/// The app side of the companion's socket: one request, one answer, on a fresh connection.
///
/// It refuses an agent run by another user (the kernel's `SO_PEERCRED`), so a socket someone
/// else planted cannot collect an app's request, and it never waits past its deadline.
public struct CompanionClient: Sendable {
    /// The socket's path.
    public let socketPath: URL

    /// A client of the agent listening at `socketPath`.
    public init(socketPath: URL) {
        self.socketPath = socketPath
    }

    /// A client of the agent for `issuer` at the usual place (``CompanionProtocol/socketPath(issuer:environment:)``).
    public init(issuer: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(socketPath: CompanionProtocol.socketPath(issuer: issuer, environment: environment))
    }

    /// Opens a connection to the agent, checked to belong to this user.
    public func connect() throws(CompanionChannelError) -> CompanionChannel {
        let channel = try CompanionChannel.connect(to: socketPath.path)
        guard PeerCredentials.admits(channel.peer) else {
            channel.close()
            throw .foreignPeer
        }
        return channel
    }

    /// Sends `request` and waits at most `timeout` for the answer.
    public func send(_ request: CompanionRequest, timeout: Duration) throws(CompanionChannelError) -> CompanionReply {
        let channel = try connect()
        defer { channel.close() }
        return try exchange(request, on: channel, until: ContinuousClock.now.advanced(by: timeout))
    }

    /// Sends `request` on `channel` and reads the answer, waiting until `deadline`.
    public func exchange(
        _ request: CompanionRequest, on channel: CompanionChannel, until deadline: ContinuousClock.Instant
    ) throws(CompanionChannelError) -> CompanionReply {
        try channel.send(request.encoded())
        let line = try channel.receive(until: deadline)
        guard let reply = CompanionReply(decoding: line) else {
            throw .system("the agent's answer is not a protocol version 1 reply")
        }
        return reply
    }
}
