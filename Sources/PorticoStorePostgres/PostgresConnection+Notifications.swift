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
    /// the notifications that arrived (forgetting them) and whether the connection is lost.
    ///
    /// Lost means libpq failed to read (the end of the connection) or found it broken. Unlike
    /// ``hasLostServer()`` at check-in, a read that completes no notification is no sign of a
    /// goodbye here: while a backlog is read, a read may end inside a notification. A server that
    /// ended the session sends its last message and closes, and the next read, one tick later
    /// at most, sees the end.
    func drainNotifications(maximumReads: Int) -> (notifications: Int, lost: Bool) {
        defer { unreportedNotifications = 0 }
        guard !isBroken, let socket else { return (collectNotifications(), true) }
        for _ in 0..<max(1, maximumReads) {
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
