import Foundation
import PorticoCrypto
import PorticoStore
import Synchronization

/// Delivers the back-channel logout messages of the outbox (``BackChannelLogout``): on its own
/// thread, it claims due messages, signs a fresh `logout_token` for each and POSTs it to the
/// client's back-channel logout URI, then records the outcome.
///
/// - **One node per message**: a claim leases the message to this deliverer
///   (``OutboxStorage/claimOutboxMessages(now:leaseUntil:owner:limit:)``), and only the lease's
///   owner records the outcome; several providers on one database share the work.
/// - **At least once**: a 2xx answer marks the message delivered; anything else (another status,
///   no answer within ``BackChannelLogoutSettings/requestTimeout``) schedules it again with
///   exponential backoff and jitter, until ``BackChannelLogoutSettings/retryWindow`` has passed
///   since it was enqueued; then it is given up. A message whose client is gone, or no longer
///   has a URI, or whose URI names an address the provider does not send to
///   (``OutboundAddressPolicy``, checked on the resolved address at each attempt), is given up
///   at once. Messages are rows, so a restart loses none, and a node that
///   dies mid-delivery leaves a lease that ends.
/// - **Fresh tokens**: signing happens at each attempt (OpenID Connect Back-Channel Logout 1.0
///   §2.4), with the key and algorithm of the client's ID tokens, so a retried message carries a
///   new `jti`, `iat` and `exp`.
///
/// A blocking thread rather than a task: each POST waits on the network, which must not hold a
/// thread of the Swift concurrency pool or the HTTP server. ``stopAndWait(timeout:)`` ends it
/// before the store closes.
final class BackChannelLogoutDeliverer: Sendable {
    /// How long a logout token is valid after it is signed.
    static let tokenLifetime: TimeInterval = 120

    private let store: any Store
    private let keys: KeyRing
    private let issuer: IssuerIdentifier
    private let subjects: PairwiseSubjects
    private let settings: BackChannelLogoutSettings
    private let metrics: BackChannelLogoutMetrics
    private let now: @Sendable () -> Date
    private let onError: @Sendable (String) -> Void
    private let poster: FormPoster
    /// This deliverer's name in the leases it takes; unique per process and start.
    private let owner = "deliverer-" + SecureRandom.token(bits: 96)
    private let isStarted = Atomic<Bool>(false)
    private let isStopped = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Prepares a deliverer; nothing runs until ``start()``.
    init(
        store: any Store, keys: KeyRing, issuer: IssuerIdentifier, subjects: PairwiseSubjects,
        settings: BackChannelLogoutSettings, addresses: OutboundAddressPolicy, metrics: BackChannelLogoutMetrics,
        now: @escaping @Sendable () -> Date, onError: @escaping @Sendable (String) -> Void
    ) {
        self.store = store
        self.keys = keys
        self.issuer = issuer
        self.subjects = subjects
        self.settings = settings
        self.metrics = metrics
        self.now = now
        self.onError = onError
        poster = FormPoster(
            client: OutboundHTTPClient(
                policy: addresses, connectTimeout: settings.connectTimeout, timeout: settings.requestTimeout))
    }

    /// Starts the delivery thread.
    func start() {
        guard !isStarted.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in
            OutboundHTTPClient.ignoreBrokenPipesOnThisThread()
            run()
            finished.signal()
        }
        thread.name = "portico-backchannel-logout"
        thread.start()
    }

    /// Stops the thread and waits (at most `timeout`) for an attempt under way to finish, so that
    /// the store can be closed after; the message of an attempt cut short is retried later.
    func stopAndWait(timeout: Duration) {
        guard !isStopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        guard isStarted.load(ordering: .acquiring) else { return }
        wake.signal()
        _ = finished.wait(timeout: .now() + BackChannelLogoutSettings.interval(timeout))
    }

    private func run() {
        let poll = BackChannelLogoutSettings.interval(settings.pollInterval)
        var round = 0
        var failing = false
        while !isStopped.load(ordering: .acquiring) {
            var claimedFullBatch = false
            do {
                // A read first: an idle provider takes no write lock, only a look every poll.
                let pending = try store.read { try $0.pendingOutboxMessageCount() }
                metrics.pending.set(Double(pending))
                if pending > 0 { claimedFullBatch = try deliverDueMessages() }
                if round % 600 == 0 { try deleteFinishedMessages() }
                failing = false
            } catch {
                // One line per outage (a database away for a minute), not one per poll.
                if !failing { onError("back-channel logout delivery failed: \(error)") }
                failing = true
            }
            round &+= 1
            if !claimedFullBatch { _ = wake.wait(timeout: .now() + poll) }
        }
    }

    /// Claims and attempts the due messages; true if the batch was full (more may be due).
    private func deliverDueMessages() throws -> Bool {
        let now = now()
        let lease = now.addingTimeInterval(BackChannelLogoutSettings.interval(settings.leaseDuration))
        let batch = try store.transaction {
            try $0.claimOutboxMessages(now: now, leaseUntil: lease, owner: owner, limit: settings.batchSize)
        }
        for (index, message) in batch.enumerated() {
            if isStopped.load(ordering: .acquiring) {
                // Stopping: the rest go back at once rather than wait for their lease to end.
                try store.transaction { transaction in
                    for unattempted in batch[index...] {
                        try transaction.releaseOutboxMessage(id: unattempted.id, owner: owner)
                    }
                }
                break
            }
            try attempt(message)
        }
        return batch.count == settings.batchSize
    }

    /// Deletes delivered and given-up messages past their retention, a bounded slice at a time.
    private func deleteFinishedMessages() throws {
        let before = now().addingTimeInterval(-BackChannelLogoutSettings.interval(settings.retention))
        _ = try store.transaction { try $0.deleteFinishedOutboxMessages(before: before, limit: 500) }
    }

    /// One attempt at `message`, and its outcome recorded.
    private func attempt(_ message: OutboxMessage) throws {
        guard message.topic == BackChannelLogout.topic,
            let content = BackChannelLogout.Message(payload: message.payload)
        else {
            return try giveUp(message, reason: "not a back-channel logout message this build understands")
        }
        guard let client = try store.read({ try $0.client(id: content.clientID) }) else {
            return try giveUp(message, reason: "the client \(content.clientID) is gone")
        }
        guard let uri = client.backchannelLogoutURI, let url = URL(string: uri) else {
            return try giveUp(message, reason: "the client \(client.id) has no back-channel logout URI")
        }
        let token: String
        do {
            token = try logoutToken(for: content, client: client)
        } catch {
            return try retry(message, reason: "signing the logout token failed: \(error)")
        }
        switch poster.post([("logout_token", token)], to: url).outcome {
        case .status(let status) where (200..<300).contains(status):
            if try store.transaction({ try $0.markOutboxMessageDelivered(id: message.id, owner: owner, now: now()) }) {
                metrics.delivered.increment()
            }
        case .status(let status):
            try retry(message, reason: "\(uri) answered \(status)")
        case .failed(let reason):
            try retry(message, reason: "\(uri): \(reason)")
        case .refused(let reason):
            // Nothing was sent; the same URL would be refused again.
            try giveUp(message, reason: "\(uri) is not sent to: \(reason)")
        }
    }

    /// The logout token for `content` (§2.4): `iss`, `aud`, `iat`, `exp`, a fresh `jti`, the
    /// event, the `sub` the client knows the person by and `sid` when one session ended; never
    /// `nonce`. Signed like the client's ID tokens, with `typ: logout+jwt`.
    func logoutToken(for content: BackChannelLogout.Message, client: Client) throws -> String {
        let algorithm = SignatureAlgorithm(rawValue: client.idTokenSigningAlgorithm) ?? .rs256
        guard let key = keys.signer(for: algorithm) else { throw MissingSigner(algorithm: algorithm) }
        let now = now()
        var claims = JWTClaims(
            issuer: issuer.current, subject: try subjects.subject(for: content.userID, client: client),
            audience: [client.id], expiresAt: now.addingTimeInterval(Self.tokenLifetime), issuedAt: now,
            jwtID: TokenIssuer.makeTokenID())
        claims["events"] = .object([BackChannelLogout.event: .object([:])])
        if let sessionID = content.sessionID { claims["sid"] = .string(sessionID) }
        return JWS.sign(claims: claims, key: key, type: BackChannelLogout.tokenType)
    }

    /// Schedules `message` again after a failed attempt, or gives it up once the retry window
    /// is over; the last attempt is at the window's end, so attempts span the whole window.
    private func retry(_ message: OutboxMessage, reason: String) throws {
        let now = now()
        let end = message.createdAt.addingTimeInterval(BackChannelLogoutSettings.interval(settings.retryWindow))
        guard now < end else { return try giveUp(message, reason: reason) }
        let delay = settings.retryDelay(afterFailedAttempts: message.failedAttempts + 1)
        let next = min(now.addingTimeInterval(delay), end)
        if try store.transaction({
            try $0.rescheduleOutboxMessage(id: message.id, owner: owner, nextAttemptAt: next, error: reason)
        }) {
            metrics.retried.increment()
        }
    }

    /// Gives `message` up for good, and says so on stderr.
    private func giveUp(_ message: OutboxMessage, reason: String) throws {
        if try store.transaction({
            try $0.markOutboxMessageFailed(id: message.id, owner: owner, now: now(), error: reason)
        }) {
            metrics.failed.increment()
            onError("back-channel logout message \(message.id) given up: \(reason)")
        }
    }

    /// The key ring has no signer for a client's ID-token algorithm (for a moment, during a
    /// revocation): the attempt is retried.
    private struct MissingSigner: Error, CustomStringConvertible {
        let algorithm: SignatureAlgorithm
        var description: String { "no \(algorithm.rawValue) signing key" }
    }
}
