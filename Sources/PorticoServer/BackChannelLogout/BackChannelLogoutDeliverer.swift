import Foundation
import PorticoCrypto
import PorticoStore

/// Delivers the back-channel logout messages of the outbox (``BackChannelLogout``), as the
/// handler of their topic in ``OutboxDispatcher`` (which decides when, on which thread, and how
/// often to retry): it signs a fresh `logout_token` for each attempt and POSTs it to the
/// client's back-channel logout URI.
///
/// - **One destination per client**: messages to one client's backend are attempted one at a
///   time, and a backend that fails rests before its next message; other clients' messages go
///   meanwhile.
/// - **Given up at once**: a message whose client is gone, or no longer has a URI, or whose URI
///   names an address the provider does not send to (``OutboundAddressPolicy``, checked on the
///   resolved address at each attempt). Any other failure (another status than 2xx, no answer
///   within ``BackChannelLogoutSettings/requestTimeout``) is retried.
/// - **Fresh tokens**: signing happens at each attempt (OpenID Connect Back-Channel Logout 1.0
///   §2.4), with the key and algorithm of the client's ID tokens, so a retried message carries a
///   new `jti`, `iat` and `exp`.
final class BackChannelLogoutDeliverer: OutboxTopicHandler {
    /// How long a logout token is valid after it is signed.
    static let tokenLifetime: TimeInterval = 120

    private let store: any Store
    private let keys: KeyRing
    private let issuer: IssuerIdentifier
    private let subjects: PairwiseSubjects
    private let metrics: BackChannelLogoutMetrics
    private let now: @Sendable () -> Date
    private let poster: FormPoster

    /// A handler that posts with `settings`' timeouts to the addresses `addresses` allows.
    init(
        store: any Store, keys: KeyRing, issuer: IssuerIdentifier, subjects: PairwiseSubjects,
        settings: BackChannelLogoutSettings, addresses: OutboundAddressPolicy, metrics: BackChannelLogoutMetrics,
        now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.keys = keys
        self.issuer = issuer
        self.subjects = subjects
        self.metrics = metrics
        self.now = now
        poster = FormPoster(
            client: OutboundHTTPClient(
                policy: addresses, connectTimeout: settings.connectTimeout, timeout: settings.requestTimeout))
    }

    var topic: String { BackChannelLogout.topic }

    func destination(of message: OutboxMessage) -> String? {
        BackChannelLogout.Message(payload: message.payload)?.clientID
    }

    func attempt(_ message: OutboxMessage) -> OutboxAttempt {
        guard let content = BackChannelLogout.Message(payload: message.payload) else {
            return .giveUp("not a back-channel logout message this build understands")
        }
        let found: Client?
        do {
            found = try store.read { try $0.client(id: content.clientID) }
        } catch {
            return .retry("reading the client \(content.clientID) failed: \(error)")
        }
        guard let client = found else { return .giveUp("the client \(content.clientID) is gone") }
        guard let uri = client.backchannelLogoutURI, let url = URL(string: uri) else {
            return .giveUp("the client \(client.id) has no back-channel logout URI")
        }
        let token: String
        do {
            token = try logoutToken(for: content, client: client)
        } catch {
            return .retry("signing the logout token failed: \(error)")
        }
        switch poster.post([("logout_token", token)], to: url).outcome {
        case .status(let status) where (200..<300).contains(status):
            return .delivered
        case .status(let status):
            return .retry("\(uri) answered \(status)")
        case .failed(let reason):
            return .retry("\(uri): \(reason)")
        case .refused(let reason):
            // Nothing was sent; the same URL would be refused again.
            return .giveUp("\(uri) is not sent to: \(reason)")
        }
    }

    func recorded(_ attempt: OutboxAttempt, gaveUp: Bool) {
        if gaveUp {
            metrics.failed.increment()
        } else if attempt == .delivered {
            metrics.delivered.increment()
        } else {
            metrics.retried.increment()
        }
    }

    func pendingCount(_ count: Int) {
        metrics.pending.set(Double(count))
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

    /// The key ring has no signer for a client's ID-token algorithm (for a moment, during a
    /// revocation): the attempt is retried.
    private struct MissingSigner: Error, CustomStringConvertible {
        let algorithm: SignatureAlgorithm
        var description: String { "no \(algorithm.rawValue) signing key" }
    }
}
