import Foundation
import PorticoCrypto
import PorticoStore
import Synchronization

/// The provider's signing keys, loaded from the store and held parsed in memory.
///
/// Keys live in the database so that every node signs with and publishes the same ones; parsing
/// a PEM costs far more than a signature, so the parsed keys and the JWKS document are cached
/// here and rebuilt only by ``reload()`` (on start) or ``reloadIfChanged()``, which a
/// ``KeyRingRefresher`` calls every few seconds so that a `portico keys rotate` run from another
/// process (or on another node) takes effect while the server runs. That check reads the few
/// rows of `signing_keys` and compares their ids, states and current flags with what is
/// loaded; PEMs are parsed again only when something changed.
final class KeyRing: Sendable {
    /// The algorithms the provider signs with; the first start makes one key of each, and a
    /// start on a database from before an algorithm was added makes that one's key. PS256 has
    /// an RSA key of its own, apart from RS256's: one key, one algorithm.
    static let algorithms: [SignatureAlgorithm] = [.rs256, .es256, .edDSA, .ps256]

    private struct State: Sendable {
        var signers: [SignatureAlgorithm: PorticoCrypto.SigningKey] = [:]
        var verifier = JWSVerifier(keys: [])
        var jwksJSON = #"{"keys":[]}"#
        /// What was loaded, as compared by ``reloadIfChanged()``.
        var fingerprint: [String] = []
        /// Counts loads, so caches of verified tokens know when the keys changed.
        var generation = 0
        /// The ids of the loaded keys, so a token naming another is noticed.
        var keyIDs: Set<String> = []
    }

    /// How often, at most, a token naming a key this node has not loaded makes it read the keys
    /// again (``verifierAndGeneration(for:)``): enough to pick up another node's rotation at
    /// once, too rare for tokens with made-up key ids to load the database.
    static let unknownKeyReloadInterval: Duration = .seconds(1)

    private let store: any Store
    private let encryption: SigningKeyEncryption
    private let state = Mutex(State())
    /// When a token with an unknown `kid` last made this ring read the store.
    private let lastUnknownKeyReload = Mutex<ContinuousClock.Instant?>(nil)

    /// Loads the keys, creating a current key for each algorithm that has none, activating
    /// rotated keys whose time came while no server ran, and sealing any still stored as plain
    /// PEM (a database from before keys were encrypted).
    init(store: any Store, encryption: SigningKeyEncryption, now: Date = Date()) throws {
        self.store = store
        self.encryption = encryption
        try ensureCurrentKeys()
        try SigningKeyRotation.activateDueKeys(in: store, now: now)
        try encryption.sealPlainKeys(in: store)
        try reload()
    }

    /// Keys sealed with a key that lives only in this process: for a store that does too (tests
    /// that build a provider by hand; an in-memory database).
    convenience init(store: any Store) throws {
        try self.init(store: store, encryption: .ephemeral())
    }

    /// Makes a key for every algorithm that lacks a current signer (the first start).
    ///
    /// Several nodes may start at once on an empty shared database, each finding no keys and
    /// making its own: ``PorticoStore/FirstSigningKeyStorage/insertSigningKeyIfNoneCurrent(_:)``
    /// stores a node's key only where no other node's is (committed or about to be), so exactly
    /// one key per algorithm is kept whoever wins, and ``reload()`` then loads the winners'.
    private func ensureCurrentKeys() throws {
        try store.transaction { transaction in
            for algorithm in Self.algorithms
            where try transaction.currentSigningKey(algorithm: algorithm.rawValue) == nil {
                let key = try PorticoCrypto.SigningKey.generate(algorithm)
                _ = try transaction.insertSigningKeyIfNoneCurrent(
                    StoredSigningKey(
                        id: key.keyID, algorithm: algorithm.rawValue,
                        privateKeyPEM: try encryption.seal(pem: key.pemRepresentation, keyID: key.keyID),
                        isCurrent: true))
            }
        }
    }

    /// Re-reads every key from the store: current signers, and the published set (keys waiting
    /// to sign, active keys, and retired keys whose tokens may still be in use).
    func reload() throws {
        try load(try store.read { try $0.signingKeys() })
    }

    /// Reloads when the stored keys differ from the loaded ones (a rotation, a retirement, a
    /// deletion); returns whether it did.
    @discardableResult
    func reloadIfChanged() throws -> Bool {
        let stored = try store.read { try $0.signingKeys() }
        guard Self.fingerprint(of: stored) != state.withLock({ $0.fingerprint }) else { return false }
        try load(stored)
        return true
    }

    private static func fingerprint(of keys: [StoredSigningKey]) -> [String] {
        keys.map { "\($0.id) \($0.state.rawValue) \($0.isCurrent)" }
    }

    private func load(_ stored: [StoredSigningKey]) throws {
        var signers: [SignatureAlgorithm: PorticoCrypto.SigningKey] = [:]
        var published: [PorticoCrypto.SigningKey] = []
        for record in stored {
            guard let algorithm = SignatureAlgorithm(rawValue: record.algorithm) else { continue }
            let key = try PorticoCrypto.SigningKey(
                pem: try encryption.privateKeyPEM(of: record), keyID: record.id, algorithm: algorithm)
            published.append(key)
            if record.isCurrent && record.state == .active { signers[algorithm] = key }
        }
        let verifier = JWSVerifier(keys: published.map(\.verificationKey))
        let jwks = JWKSet(signingKeys: published).jsonString
        let fingerprint = Self.fingerprint(of: stored)
        let keyIDs = Set(stored.map(\.id))
        state.withLock {
            $0 = State(
                signers: signers, verifier: verifier, jwksJSON: jwks, fingerprint: fingerprint,
                generation: $0.generation + 1, keyIDs: keyIDs)
        }
    }

    /// A secret every node on the same key file derives alike; see
    /// ``SigningKeyEncryption/derivedSecret(purpose:)``.
    func derivedSecret(purpose: String) -> [UInt8] {
        encryption.derivedSecret(purpose: purpose)
    }

    /// The key that signs new tokens of `algorithm`.
    func signer(for algorithm: SignatureAlgorithm) -> PorticoCrypto.SigningKey? {
        state.withLock { $0.signers[algorithm] }
    }

    /// A verifier that knows every published key, for tokens this provider issued.
    var verifier: JWSVerifier {
        state.withLock { $0.verifier }
    }

    /// Which load of the keys is in use; it changes whenever a key is added, retired or removed,
    /// so that anything verified with the old set (``AccessTokenVerifier``'s cache) is checked
    /// again: a revoked key must stop vouching for its tokens at once.
    var generation: Int {
        state.withLock { $0.generation }
    }

    /// The verifier together with the generation it belongs to.
    var verifierAndGeneration: (JWSVerifier, Int) {
        state.withLock { ($0.verifier, $0.generation) }
    }

    /// The verifier for `token`, with its generation: when the token names a key this ring
    /// has not loaded, the keys are first read again (at most once per
    /// ``unknownKeyReloadInterval``).
    ///
    /// Why: with several nodes, `portico keys rotate` (or the first start) on one node makes it
    /// sign with a key the others load only at their next refresh, up to five seconds later. A
    /// token, sealed request or ID token hint signed by the new key that reaches another node
    /// in between would be refused there. Reading the keys when an unknown `kid` turns up
    /// closes that window; a store that cannot be read leaves the loaded keys in use.
    func verifierAndGeneration(for token: String) -> (JWSVerifier, Int) {
        let current = state.withLock { ($0.verifier, $0.generation, $0.keyIDs) }
        guard let keyID = Self.keyID(of: token), !current.2.contains(keyID) else { return (current.0, current.1) }
        let now = ContinuousClock.now
        let due = lastUnknownKeyReload.withLock { last -> Bool in
            if let last, now - last < Self.unknownKeyReloadInterval { return false }
            last = now
            return true
        }
        guard due, (try? reloadIfChanged()) == true else { return (current.0, current.1) }
        return verifierAndGeneration
    }

    /// The verifier for `token`; see ``verifierAndGeneration(for:)``.
    func verifier(for token: String) -> JWSVerifier {
        verifierAndGeneration(for: token).0
    }

    /// The `kid` in a compact JWS's header, if it has one that can be read.
    private static func keyID(of token: String) -> String? {
        guard let dot = token.firstIndex(of: "."), let header = Base64URL.decode(token[..<dot]),
            let members = JSONValue(parsing: header)?.objectValue
        else { return nil }
        return members["kid"]?.stringValue
    }

    /// The JWKS document (`/oauth/jwks`), prebuilt.
    var jwksJSON: String {
        state.withLock { $0.jwksJSON }
    }
}
