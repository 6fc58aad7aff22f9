import Foundation
import PorticoStore

/// Everything the provider is made of: the issuer, the store, the keys, the password hasher,
/// the caches and a clock, assembled once by ``IdentityProvider``.
///
/// The protocol endpoints, the grants and the features
/// (``CompanionRoutes/Parts``, ``AccountLinkRoutes/Parts``) take only the parts they use (see
/// ``ProtocolRoutes``, which takes them from here), and the pages take ``PageEnvironment``.
/// One instance per running provider, shared by every HTTP thread; everything in it is
/// immutable or synchronized, so handlers read it without locks of their own.
final class ProviderContext: Sendable {
    /// The store every node shares.
    let store: any Store
    /// Parsed signing keys and the JWKS document.
    let keys: KeyRing
    /// Argon2id hashing of passwords.
    let passwords: PasswordHasher
    /// Admission for those hashes, so a sign-in flood cannot take every core (see
    /// ``PasswordCheckGate``).
    let passwordChecks: PasswordCheckGate
    /// Token and session lifetimes.
    let lifetimes: TokenLifetimes
    /// The clock; tests may pin it.
    let now: @Sendable () -> Date
    /// Delivers mail to people (password-reset links).
    let mailer: any Mailer
    /// Registered clients, cached for a few seconds for the back-channel endpoints.
    let clients: ClientCache
    /// The `private_key_jwt` keys of the clients, parsed once per registration.
    let clientKeySets: ClientKeySetCache
    /// The ID tokens the Native SSO exchange has verified (one cache for the node).
    let verifiedIDTokens = VerifiedIDTokens()
    /// Counters for operators (tokens, errors, sign-ins); exposed only with `--metrics`.
    let metrics: ProviderMetrics
    /// The issuer identifier, set late when the server binds an ephemeral port.
    let issuerIdentifier: IssuerIdentifier
    /// Whether a route that touches the store runs on an epoll thread or the worker pool.
    let execution: RouteExecution
    /// Whether DPoP proofs must carry a nonce of the provider's (``ProviderConfiguration/requiresDPoPNonce``).
    let requiresDPoPNonce: Bool
    /// Whether dynamic registration needs no initial access token (`--open-registration`).
    let allowsOpenRegistration: Bool
    /// Whether URLs the provider sends to may name loopback (`--allow-loopback-callbacks`).
    let allowsLoopbackCallbacks: Bool
    /// Whether every app must push its authorization requests (``ProviderConfiguration/requiresPAR``).
    let requiresPAR: Bool
    /// Clients described by a client metadata document at their `client_id` URL.
    let clientMetadataDocuments: ClientMetadataDocuments

    init(
        issuer: String, store: any Store, keys: KeyRing, passwords: PasswordHasher = PasswordHasher(),
        lifetimes: TokenLifetimes = TokenLifetimes(), now: @escaping @Sendable () -> Date = { Date() },
        mailer: any Mailer = OutboxMailer(directory: "./portico-data/outbox"),
        metrics: ProviderMetrics = ProviderMetrics(), passwordChecks: PasswordCheckGate = PasswordCheckGate(),
        requiresDPoPNonce: Bool = false, allowsOpenRegistration: Bool = false, allowsLoopbackCallbacks: Bool = false,
        requiresPAR: Bool = false,
        documentFetcher: OutboundHTTPClient = OutboundHTTPClient(
            policy: OutboundAddressPolicy(), connectTimeout: .seconds(2), timeout: .seconds(5))
    ) {
        self.requiresPAR = requiresPAR
        self.requiresDPoPNonce = requiresDPoPNonce
        self.allowsOpenRegistration = allowsOpenRegistration
        self.allowsLoopbackCallbacks = allowsLoopbackCallbacks
        self.issuerIdentifier = IssuerIdentifier(issuer)
        self.store = store
        self.keys = keys
        self.passwords = passwords
        self.passwordChecks = passwordChecks
        self.lifetimes = lifetimes
        self.now = now
        self.mailer = mailer
        self.clients = ClientCache(store: store)
        self.clientKeySets = ClientKeySetCache(fetcher: documentFetcher)
        self.clientMetadataDocuments = ClientMetadataDocuments(
            store: store, fetcher: documentFetcher, allowsLoopbackCallbacks: allowsLoopbackCallbacks, clients: clients)
        self.metrics = metrics
        self.execution = RouteExecution(for: store)
    }

    /// Checks DPoP proofs (RFC 9449) at the token endpoint and the resources, with nonces every
    /// node on the same key file makes and checks alike.
    var dpopProofChecker: DPoPProofChecker {
        DPoPProofChecker(
            issuer: issuerIdentifier, nonces: DPoPNonces(secret: keys.derivedSecret(purpose: "portico dpop nonces")),
            requiresNonce: requiresDPoPNonce, now: now)
    }

    /// Verifies signed authorization requests (JAR, RFC 9101) with the clients' `--jwks` keys.
    var requestObjectVerifier: RequestObjectVerifier {
        RequestObjectVerifier(issuer: issuerIdentifier, now: now, keySets: clientKeySets)
    }

    /// The issuer identifier (`iss`), without a trailing slash.
    var issuer: String {
        issuerIdentifier.current
    }

    /// Sets the issuer once the port is known (a server started on port 0 learns it late).
    func setIssuer(_ issuer: String) {
        issuerIdentifier.set(issuer)
    }

    /// Whether cookies must be `Secure`: when people reach the provider over https.
    var usesHTTPS: Bool {
        issuerIdentifier.usesHTTPS
    }

    /// Signs the provider's access and ID tokens.
    var tokenIssuer: TokenIssuer {
        TokenIssuer(keys: keys, issuer: issuerIdentifier, lifetimes: lifetimes, now: now)
    }
}
