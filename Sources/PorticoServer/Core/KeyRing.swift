import Foundation
import PorticoCrypto
import PorticoStore
import Synchronization

/// The provider's signing keys, loaded from the store and held parsed in memory.
///
/// Keys live in the database so that every node signs with and publishes the same ones; parsing
/// a PEM costs far more than a signature, so the parsed keys and the JWKS document are cached
/// here and rebuilt only by ``reload()`` (after `portico keys rotate`, or on start).
final class KeyRing: Sendable {
    /// The algorithms the provider signs with; the first start makes one key of each.
    static let algorithms: [SignatureAlgorithm] = [.rs256, .es256, .edDSA]

    private struct State: Sendable {
        var signers: [SignatureAlgorithm: PorticoCrypto.SigningKey] = [:]
        var verifier = JWSVerifier(keys: [])
        var jwksJSON = #"{"keys":[]}"#
    }

    private let store: any Store
    private let state = Mutex(State())

    /// Loads the keys, creating a current key for each algorithm that has none.
    init(store: any Store) throws {
        self.store = store
        try ensureCurrentKeys()
        try reload()
    }

    /// Makes a key for every algorithm that lacks a current signer (the first start).
    private func ensureCurrentKeys() throws {
        try store.transaction { transaction in
            for algorithm in Self.algorithms
            where try transaction.currentSigningKey(algorithm: algorithm.rawValue) == nil {
                let key = try PorticoCrypto.SigningKey.generate(algorithm)
                try transaction.insert(
                    PorticoStore.SigningKey(
                        id: key.keyID, algorithm: algorithm.rawValue, privateKeyPEM: key.pemRepresentation,
                        isCurrent: true))
            }
        }
    }

    /// Re-reads every key from the store: current signers, and the published set (active and
    /// retired keys whose tokens may still be in use).
    func reload() throws {
        let stored = try store.read { try $0.signingKeys() }
        var signers: [SignatureAlgorithm: PorticoCrypto.SigningKey] = [:]
        var published: [PorticoCrypto.SigningKey] = []
        for record in stored {
            guard let algorithm = SignatureAlgorithm(rawValue: record.algorithm) else { continue }
            let key = try PorticoCrypto.SigningKey(pem: record.privateKeyPEM, keyID: record.id)
            published.append(key)
            if record.isCurrent && record.state == .active { signers[algorithm] = key }
        }
        let verifier = JWSVerifier(keys: published.map(\.verificationKey))
        let jwks = JWKSet(signingKeys: published).jsonString
        state.withLock { $0 = State(signers: signers, verifier: verifier, jwksJSON: jwks) }
    }

    /// The key that signs new tokens of `algorithm`.
    func signer(for algorithm: SignatureAlgorithm) -> PorticoCrypto.SigningKey? {
        state.withLock { $0.signers[algorithm] }
    }

    /// A verifier that knows every published key, for tokens this provider issued.
    var verifier: JWSVerifier {
        state.withLock { $0.verifier }
    }

    /// The JWKS document (`/oauth/jwks`), prebuilt.
    var jwksJSON: String {
        state.withLock { $0.jwksJSON }
    }
}
