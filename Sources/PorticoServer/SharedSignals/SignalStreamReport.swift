import Foundation
import PorticoStore

/// What an operator sees of one app's Shared Signals stream (`portico client signals ID`): how
/// it is delivered, its status, how many events wait, and the events given up on with the
/// receiver's own words (its RFC 8935 §2.3 `err` and `description`). Without it a receiver's
/// refusals reach only the log and `/metrics`, and the person who runs the platform cannot tell
/// an app's team why its events stopped.
public struct SignalStreamReport: Sendable {
    /// One event the provider gave up delivering.
    public struct Refusal: Sendable {
        /// The SET's `jti`, which the receiver's own logs name.
        public let jti: String
        /// The event type (its short name: `account-disabled`, say).
        public let event: String
        /// The account the event was about; nil for a stream event.
        public let userID: String?
        /// When the provider gave up.
        public let failedAt: Date
        /// Why: the receiver's `err: description` for a 400, or the last transport failure.
        public let reason: String
    }

    /// The app.
    public let clientID: String
    /// `urn:ietf:rfc:8935` (push) or `urn:ietf:rfc:8936` (poll).
    public let deliveryMethod: String
    /// Whether the provider pushes the events (RFC 8935) rather than the app polling for them.
    public var isPush: Bool { deliveryMethod == SharedSignals.pushMethod }
    /// Where push delivers; nil for poll.
    public let endpointURL: String?
    /// `enabled`, `paused` or `disabled`, with the reason the receiver gave.
    public let status: String
    /// The reason given with ``status``, if any.
    public let statusReason: String?
    /// Events waiting: push messages not yet delivered, or polled SETs not yet acknowledged.
    public let pending: Int
    /// The latest events given up on, newest first.
    public let refusals: [Refusal]

    /// The report of `clientID`'s stream, or nil when the app has none. Reads at most
    /// `scanning` given-up messages of all streams (the outbox keeps them for its retention
    /// only), so the cost stays bounded however many apps refuse events.
    public static func read(
        clientID: String, from store: any Store, limit: Int = 20, scanning: Int = 10_000
    ) throws -> SignalStreamReport? {
        try store.read { transaction in
            guard let stream = try transaction.signalStream(clientID: clientID) else { return nil }
            let pending: Int
            var refusals: [Refusal] = []
            if stream.deliveryMethod == SharedSignals.pushMethod {
                pending = try transaction.pendingOutboxMessages(topic: SharedSignals.topic, limit: scanning)
                    .filter { SignalEvent(payload: $0.payload)?.clientID == clientID }.count
                for message in try transaction.failedOutboxMessages(topic: SharedSignals.topic, limit: scanning) {
                    guard refusals.count < limit, let event = SignalEvent(payload: message.payload),
                        event.clientID == clientID, let failedAt = message.failedAt
                    else { continue }
                    refusals.append(
                        Refusal(
                            jti: event.jti, event: event.event.shortName, userID: event.userID, failedAt: failedAt,
                            reason: message.lastError ?? "no reason recorded"))
                }
            } else {
                pending = try transaction.polledSignalCount(clientID: clientID)
            }
            return SignalStreamReport(
                clientID: clientID, deliveryMethod: stream.deliveryMethod, endpointURL: stream.endpointURL,
                status: stream.status, statusReason: stream.statusReason, pending: pending, refusals: refusals)
        }
    }
}

extension SharedSignals.Event {
    /// The last path segment of the event type URI (`credential-change`), for operators' eyes.
    var shortName: String { rawValue.split(separator: "/").last.map(String.init) ?? rawValue }
}
