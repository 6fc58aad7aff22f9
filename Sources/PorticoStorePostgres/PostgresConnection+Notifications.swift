import CLibPQ
import Foundation

// LISTEN and the notifications libpq collects (libpq's "Asynchronous Notification").
extension PostgresConnection {
    /// Subscribes this session to `channel` (a fixed identifier, never input). Run outside a
    /// transaction, it lasts as long as the session.
    func listen(to channel: String) throws(PostgresError) {
        try execute("LISTEN \(channel)")
        isListening = true
    }

    /// Moves the notifications libpq has read into ``unreportedNotifications`` and returns
    /// how many there are now. libpq collects them while it reads any result (a session's own
    /// `NOTIFY` arrives with its `COMMIT`'s), so after a statement nothing more need be read.
    @discardableResult
    func collectNotifications() -> Int {
        while let notification = PQnotifies(handle) {
            PQfreemem(notification)
            unreportedNotifications += 1
        }
        return unreportedNotifications
    }

    /// Whether notifications arrived since the last call (and forgets them).
    func takeNotifications() -> Bool {
        let any = collectNotifications() > 0
        unreportedNotifications = 0
        return any
    }

    /// Reads whatever the server sent meanwhile without waiting; false when the connection is
    /// gone (libpq saw the end of it or a failure).
    func consumeInput() -> Bool {
        PQconsumeInput(handle) == 1 && !isBroken
    }

    /// Reads what an idle listening connection was sent, as long as more is waiting (at most
    /// `maximumReads` reads, so that a steady stream cannot hold the connection), and returns
    /// the notifications that arrived (forgetting them) and whether the connection is lost. The
    /// first read follows ``hasLostServer()``: something to read that holds no notification means
    /// the server said goodbye.
    func drainNotifications(maximumReads: Int) -> (notifications: Int, lost: Bool) {
        defer { unreportedNotifications = 0 }
        if hasLostServer() { return (collectNotifications(), true) }
        guard let socket else { return (collectNotifications(), true) }
        for _ in 1..<max(1, maximumReads) {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else { break }
            guard consumeInput() else { return (collectNotifications(), true) }
            collectNotifications()
        }
        return (collectNotifications(), false)
    }

    /// The socket to wait on, or nil when there is none.
    var socket: Int32? {
        let socket = PQsocket(handle)
        return socket >= 0 ? socket : nil
    }
}
