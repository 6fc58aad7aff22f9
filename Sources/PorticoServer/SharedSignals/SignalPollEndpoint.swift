import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// Poll delivery (RFC 8936): a receiver whose stream polls POSTs here with its ``StreamAccess``
/// token, acknowledging what it has processed (`ack`), reporting SETs it refused (`setErrs`),
/// and getting the next SETs (at most `maxEvents`), oldest first, with `moreAvailable`.
///
/// Without `returnImmediately: true` an empty answer waits (long polling, §2.4) until an event
/// arrives or ``SharedSignals/longestPoll`` has passed. The wait is a suspended task that looks
/// at the queue every ``wakeInterval`` (a cheap indexed count), never a blocked thread: the
/// HTTP server's threads go on serving while any number of receivers wait, and an event queued
/// by any node (or the CLI) is seen at the next look.
struct SignalPollEndpoint: Sendable {
    /// How often a waiting poll looks at its queue.
    static let wakeInterval: Duration = .milliseconds(200)
    /// The most SETs one answer carries.
    static let largestBatch = 1000

    /// The receiver's token, checked.
    let access: StreamAccess
    /// The poll queue.
    let store: any Store
    /// Signs the SETs.
    let signer: SecurityEventSigner
    /// Per-stream counts.
    let metrics: SharedSignalsMetrics
    /// Logs receivers' errors.
    let onError: @Sendable (String) -> Void

    /// Registers `POST /ssf/poll`, always on the worker pool (it may wait).
    func register(on router: Router) {
        router.addAsync(.post, SharedSignals.pollPath) { request in await answer(request) }
    }

    /// What one poll request asks.
    private struct Poll {
        var acknowledged: [String] = []
        var errors: [String: String] = [:]
        var maximum = 100
        var returnImmediately = false
    }

    func answer(_ request: Request) async -> Response {
        let first = OAuthEndpoint.respond { () throws -> Response in
            let client = try access.receiver(of: request)
            let poll = try Self.parse(StreamManagementEndpoint.object(in: request))
            let stream = try store.transaction { transaction -> SignalStream in
                guard let stream = try transaction.signalStream(clientID: client.id),
                    stream.deliveryMethod == SharedSignals.pollMethod
                else { throw StreamError.notFound("This receiver has no stream delivered by poll.") }
                let removed = try transaction.acknowledgePolledSignals(
                    clientID: client.id, jtis: poll.acknowledged + Array(poll.errors.keys))
                if removed > 0 { metrics.delivered(stream: client.id).increment(by: UInt64(removed)) }
                return stream
            }
            for (jti, reason) in poll.errors.sorted(by: { $0.key < $1.key }) {
                metrics.failed(stream: client.id).increment()
                onError("Shared Signals: receiver \(client.id) refused SET \(jti): \(reason)")
            }
            return try batch(for: client, stream: stream, maximum: poll.maximum, waiting: !poll.returnImmediately)
                ?? Response(status: .noContent)
        }
        // 204 marks "nothing yet, and the receiver is willing to wait".
        guard first.status == .noContent else { return first }
        let deadline = ContinuousClock.now + SharedSignals.longestPoll
        while ContinuousClock.now < deadline {
            do {
                try await Task.sleep(for: Self.wakeInterval)
            } catch {
                break
            }
            let next = OAuthEndpoint.respond { () throws -> Response in
                let client = try access.receiver(of: request)
                guard let stream = try store.read({ try $0.signalStream(clientID: client.id) }) else {
                    throw StreamError.notFound("This receiver has no stream delivered by poll.")
                }
                let maximum = (try? Self.parse(StreamManagementEndpoint.object(in: request)).maximum) ?? 100
                return try batch(for: client, stream: stream, maximum: maximum, waiting: true)
                    ?? Response(status: .noContent)
            }
            if next.status != .noContent { return next }
        }
        return Self.json(sets: [:], more: false)
    }

    /// The next SETs, signed; nil when there are none and the receiver waits for some.
    private func batch(for client: Client, stream: SignalStream, maximum: Int, waiting: Bool) throws -> Response? {
        guard maximum > 0 else {
            // maxEvents 0: an acknowledgement only (§2.2).
            let more = try store.read { try $0.polledSignalCount(clientID: client.id) } > 0
            return Self.json(sets: [:], more: more)
        }
        // A paused stream holds its events: nothing is handed out until it is enabled again.
        let queued =
            stream.status == "enabled"
            ? try store.read { try $0.polledSignals(clientID: client.id, limit: maximum + 1) } : []
        if queued.isEmpty && waiting { return nil }
        var sets: [String: JSONValue] = [:]
        for signal in queued.prefix(maximum) {
            guard let event = SignalEvent(payload: signal.payload) else { continue }
            sets[signal.jti] = .string(try signer.sign(event, client: client, streamID: stream.id))
        }
        let pending = try store.read { try $0.polledSignalCount(clientID: client.id) }
        metrics.pending(stream: client.id).set(Double(pending))
        return Self.json(sets: sets, more: queued.count > maximum)
    }

    private static func json(sets: [String: JSONValue], more: Bool) -> Response {
        var response = Response.json(
            raw: JSONValue.object(["sets": .object(sets), "moreAvailable": .bool(more)]).jsonString)
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// The members of a poll request (§2.1–2.4), checked.
    private static func parse(_ body: [String: JSONValue]) throws -> Poll {
        var poll = Poll()
        if let maximum = body["maxEvents"] {
            guard let value = maximum.integerValue, value >= 0 else {
                throw StreamError.invalid("maxEvents must be a whole number, 0 or more.")
            }
            poll.maximum = Int(min(value, Int64(largestBatch)))
        }
        if let immediately = body["returnImmediately"] {
            guard let value = immediately.boolValue else {
                throw StreamError.invalid("returnImmediately must be true or false.")
            }
            poll.returnImmediately = value
        }
        if let ack = body["ack"] {
            guard let list = ack.arrayValue, list.count <= 10_000 else {
                throw StreamError.invalid("ack must be an array of jti.")
            }
            for item in list {
                guard let jti = item.stringValue, StoredText.canHold(jti) else {
                    throw StreamError.invalid("ack must be an array of jti.")
                }
                poll.acknowledged.append(jti)
            }
        }
        if let errors = body["setErrs"] {
            guard let object = errors.objectValue, object.count <= 10_000 else {
                throw StreamError.invalid("setErrs must be an object of jti to {err, description}.")
            }
            for (jti, value) in object {
                guard StoredText.canHold(jti), let error = value.objectValue, let code = error["err"]?.stringValue
                else {
                    throw StreamError.invalid("setErrs must be an object of jti to {err, description}.")
                }
                let description = error["description"]?.stringValue.map { ": " + $0 } ?? ""
                poll.errors[jti] = String((code + description).prefix(500))
            }
        }
        return poll
    }
}
