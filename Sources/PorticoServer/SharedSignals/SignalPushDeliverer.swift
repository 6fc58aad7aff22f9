import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore
import Synchronization

/// Pushes the SETs of the outbox (RFC 8935) as the handler of ``SharedSignals/topic`` in
/// ``OutboxDispatcher``, which decides when, on which node and thread, and how often to retry
/// (with backoff for ``BackChannelLogoutSettings/retryWindow``, a day by default).
///
/// - **One destination per stream**: a receiver's SETs go one at a time, oldest first; a
///   receiver that fails rests before the next, and others' SETs go meanwhile.
/// - **202 delivers** (any 2xx is taken as accepted). A **400** is the receiver refusing this
///   SET (RFC 8935 §2.3: `invalid_request`, `invalid_key`, `invalid_issuer`, `invalid_audience`,
///   `authentication_failed`, `access_denied`), which sending it again will not change: it is
///   given up with the receiver's `err` and `description` recorded in the message's
///   `last_error` and logged. Anything else (no answer, 5xx, 401/403 from a proxy) is retried.
/// - **Paused** streams hold their SETs (retried later); **disabled** or deleted ones drop them.
/// - The same `jti` and `iat` at every attempt; the signature is fresh.
final class SignalPushDeliverer: OutboxTopicHandler {
    private let store: any Store
    private let signer: SecurityEventSigner
    private let metrics: SharedSignalsMetrics
    private let client: OutboundHTTPClient
    private let onError: @Sendable (String) -> Void
    /// When the per-stream pending gauges were last counted.
    private let lastCount = Mutex<ContinuousClock.Instant?>(nil)

    /// A handler that posts with `settings`' timeouts to the addresses `addresses` allows.
    init(
        store: any Store, signer: SecurityEventSigner, settings: BackChannelLogoutSettings,
        addresses: OutboundAddressPolicy, metrics: SharedSignalsMetrics,
        onError: @escaping @Sendable (String) -> Void
    ) {
        self.store = store
        self.signer = signer
        self.metrics = metrics
        self.onError = onError
        client = OutboundHTTPClient(
            policy: addresses, connectTimeout: settings.connectTimeout, timeout: settings.requestTimeout)
    }

    var topic: String { SharedSignals.topic }

    func destination(of message: OutboxMessage) -> String? {
        SignalEvent(payload: message.payload)?.clientID
    }

    func attempt(_ message: OutboxMessage) -> OutboxAttempt {
        guard let event = SignalEvent(payload: message.payload) else {
            return .giveUp("not a Shared Signals event this build understands")
        }
        let found: (Client?, SignalStream?)
        do {
            found = try store.read {
                (try $0.client(id: event.clientID), try $0.signalStream(clientID: event.clientID))
            }
        } catch {
            return .retry("reading the stream of \(event.clientID) failed: \(error)")
        }
        guard let receiver = found.0, let stream = found.1 else {
            return .giveUp("the stream of \(event.clientID) is gone")
        }
        switch stream.status {
        case "paused": return .retry("the stream of \(event.clientID) is paused")
        case "disabled": return .giveUp("the stream of \(event.clientID) is disabled")
        default: break
        }
        guard stream.deliveryMethod == SharedSignals.pushMethod, let endpoint = stream.endpointURL,
            let url = URL(string: endpoint)
        else { return .giveUp("the stream of \(event.clientID) no longer pushes") }
        let token: String
        do {
            token = try signer.sign(event, client: receiver, streamID: stream.id)
        } catch {
            return .retry("signing the SET failed: \(error)")
        }
        var headers = [("Accept", "application/json")]
        if let authorization = stream.authorizationHeader { headers.append(("Authorization", authorization)) }
        let exchange = client.post(
            Array(token.utf8), contentType: "application/secevent+jwt", headers: headers, readingBody: true, to: url)
        switch exchange.outcome {
        case .status(let status) where (200..<300).contains(status):
            return .delivered
        case .status(400):
            let reason = Self.receiverError(in: exchange.body)
            onError("Shared Signals: \(endpoint) refused SET \(event.jti): \(reason)")
            return .giveUp("\(endpoint) refused it: \(reason)")
        case .status(let status):
            return .retry("\(endpoint) answered \(status)")
        case .failed(let reason):
            return .retry("\(endpoint): \(reason)")
        case .refused(let reason):
            return .giveUp("\(endpoint) is not sent to: \(reason)")
        }
    }

    /// `err: description` of a receiver's RFC 8935 §2.3 error body, or what there was.
    static func receiverError(in body: [UInt8]) -> String {
        guard let object = JSONValue(parsing: body)?.objectValue, let code = object["err"]?.stringValue else {
            return "400 without an RFC 8935 error"
        }
        let description = object["description"]?.stringValue.map { ": " + $0 } ?? ""
        return String((code + description).prefix(500))
    }

    func recorded(_ attempt: OutboxAttempt, gaveUp: Bool) {}

    func recorded(_ attempt: OutboxAttempt, gaveUp: Bool, of message: OutboxMessage) {
        guard let stream = destination(of: message) else { return }
        if gaveUp {
            metrics.failed(stream: stream).increment()
        } else if attempt == .delivered {
            metrics.delivered(stream: stream).increment()
        }
    }

    func pendingCount(_ count: Int) {
        let now = ContinuousClock.now
        let due = lastCount.withLock { last -> Bool in
            if let last, last.duration(to: now) < .seconds(5) { return false }
            last = now
            return true
        }
        guard due else { return }
        do {
            let pending = try store.read { try $0.pendingOutboxMessages(topic: SharedSignals.topic, limit: 100_000) }
            var counts: [String: Int] = [:]
            for message in pending {
                if let clientID = SignalEvent(payload: message.payload)?.clientID { counts[clientID, default: 0] += 1 }
            }
            let known = knownStreams.withLock { known in
                known.formUnion(counts.keys)
                return known
            }
            for stream in known { metrics.pending(stream: stream).set(Double(counts[stream] ?? 0)) }
        } catch {
            onError("Shared Signals: counting pending SETs failed: \(error)")
        }
    }

    /// Streams that have had SETs pending, whose gauge is set (to 0 too) at each count.
    private let knownStreams = Mutex<Set<String>>([])
}
