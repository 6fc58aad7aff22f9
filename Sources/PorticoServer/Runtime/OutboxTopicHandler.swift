import PorticoStore

/// What one attempt at an outbox message came to.
enum OutboxAttempt: Sendable, Equatable {
    /// The recipient took it.
    case delivered
    /// It failed and may work later (the recipient down, slow, answering an error).
    case retry(String)
    /// It can never be delivered (its recipient is gone, or its URL is refused).
    case giveUp(String)
}

/// How the messages of one outbox topic are delivered, for ``OutboxDispatcher``: back-channel
/// logout tokens now, Shared Signals pushes later. The dispatcher decides when and on which
/// thread; the handler knows what a message says and whom it goes to.
protocol OutboxTopicHandler: Sendable {
    /// The topic whose messages it delivers.
    var topic: String { get }

    /// Whom `message` goes to (a client's backend, a stream's endpoint), as a key: one message
    /// per destination is attempted at a time, and a destination that fails is rested before
    /// its next message. Nil when the message cannot be read; its attempt then gives it up.
    func destination(of message: OutboxMessage) -> String?

    /// One attempt at `message`, blocking while it waits on the network.
    func attempt(_ message: OutboxMessage) -> OutboxAttempt

    /// Told once the outcome of an attempt has been recorded (for metrics): `attempt` was the
    /// outcome, and `gaveUp` whether a failed attempt ended the message for good.
    func recorded(_ attempt: OutboxAttempt, gaveUp: Bool)

    /// As ``recorded(_:gaveUp:)``, told which message it was (per-destination metrics); by
    /// default that.
    func recorded(_ attempt: OutboxAttempt, gaveUp: Bool, of message: OutboxMessage)

    /// Told how many messages of every topic are pending, at each look.
    func pendingCount(_ count: Int)
}

extension OutboxTopicHandler {
    func recorded(_ attempt: OutboxAttempt, gaveUp: Bool, of message: OutboxMessage) {
        recorded(attempt, gaveUp: gaveUp)
    }
}
