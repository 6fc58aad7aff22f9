import Foundation
import PorticoStore

/// What the pages people see use of the provider: built once from the ``ProviderContext`` and
/// handed to every page endpoint instead of it.
///
/// Pages read and write the store, sign people in (passwords, sessions, their cookies' `Secure`
/// flag from the issuer), seal pending requests and derive page secrets from the keys, mail
/// people and count what happened. They never authenticate clients, sign tokens or verify
/// client assertions: those parts of the context (the client cache, the verified ID tokens,
/// the route execution) stay with the protocol endpoints, so a page cannot reach them by
/// accident. The one use of client keys is the authorization endpoint's: signed request
/// objects (JAR), through ``requestObjects``.
struct PageEnvironment: Sendable {
    /// The store every node shares.
    let store: any Store
    /// The signing keys: pending-request seals, derived page secrets, `id_token_hint` checks.
    let keys: KeyRing
    /// Argon2id hashing of passwords.
    let passwords: PasswordHasher
    /// Admission for those hashes (``PasswordCheckGate``).
    let passwordChecks: PasswordCheckGate
    /// Session and code lifetimes.
    let lifetimes: TokenLifetimes
    /// The clock; tests may pin it.
    let now: @Sendable () -> Date
    /// Delivers mail to people.
    let mailer: any Mailer
    /// Counters for operators.
    let metrics: ProviderMetrics
    /// The issuer identifier, set late when the server binds an ephemeral port.
    let issuerIdentifier: IssuerIdentifier
    /// Drops an app this node changed or removed from the protocol endpoints' client cache (the
    /// developer console), so its new secret works here at once; pages never read the cache.
    let forgetClient: @Sendable (String) -> Void
    /// Verifies signed request objects (RFC 9101) at the authorization endpoint.
    let requestObjects: RequestObjectVerifier
    /// Clients described by a client metadata document at their `client_id` URL.
    let clientMetadataDocuments: ClientMetadataDocuments
    /// Whether every app must push its authorization requests (`serve --require-par`).
    let requiresPAR: Bool

    /// The pages' parts of `context`.
    init(_ context: ProviderContext) {
        store = context.store
        keys = context.keys
        passwords = context.passwords
        passwordChecks = context.passwordChecks
        lifetimes = context.lifetimes
        now = context.now
        mailer = context.mailer
        metrics = context.metrics
        issuerIdentifier = context.issuerIdentifier
        forgetClient = { [clients = context.clients] in clients.forget(id: $0) }
        requestObjects = context.requestObjectVerifier
        clientMetadataDocuments = context.clientMetadataDocuments
        requiresPAR = context.requiresPAR
    }

    /// The issuer identifier (`iss`), without a trailing slash.
    var issuer: String {
        issuerIdentifier.current
    }

    /// Whether cookies must be `Secure`: when people reach the provider over https.
    var usesHTTPS: Bool {
        issuerIdentifier.usesHTTPS
    }
}
