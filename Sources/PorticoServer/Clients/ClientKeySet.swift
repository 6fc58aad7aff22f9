import Foundation
import PorticoCrypto

/// The public keys a `private_key_jwt` client signs its assertions with (`client add --jwks`),
/// checked once at registration so that a request never meets a key set that cannot work.
///
/// Only public signing keys of the algorithms Portico verifies (RS256 and PS256 with at least
/// 2048 bits, ES256, EdDSA) are accepted: a file holding a private key (`d`) is refused, since
/// the provider must never hold a client's private key, and so are `use` other than `sig`,
/// repeated `kid`s and more than ``maximumKeys`` keys. What is stored is the normalised set
/// (`kid` defaulting to the RFC 7638 thumbprint, `alg` set from the key), so the key — never
/// the assertion's header — decides the algorithm. The one exception is an RSA key without
/// `alg`, which is kept without one and verifies RS256 and PS256 alike (one key for each, see
/// ``VerificationKey/keys(for:)``): the header then picks which of the two, never how a key
/// that named its algorithm is used.
struct ClientKeySet: Sendable {
    /// More keys than a rotation needs is a mistake, not a key set.
    static let maximumKeys = 10
    /// A larger file is not a JWKS of a few public keys.
    static let maximumBytes = 64 * 1024

    /// The keys, each bound to its one algorithm (an RSA JWK without `alg` gives two).
    let keys: [VerificationKey]
    /// The normalised JWKs, one per key of the file.
    private let documents: [JWK]

    /// Checks `json` (the file's text); the error is one line naming what is wrong.
    init(json: String) throws(AdminError) {
        guard json.utf8.count <= Self.maximumBytes else {
            throw .invalid("the JWKS file is larger than \(Self.maximumBytes / 1024) KiB")
        }
        let set: JWKSet
        do {
            set = try JWKSet(json: json)
        } catch {
            throw .invalid("the JWKS file is not a JSON Web Key Set ({\"keys\": [...]})")
        }
        guard !set.keys.isEmpty else { throw .invalid("the JWKS file has no keys") }
        guard set.keys.count <= Self.maximumKeys else {
            throw .invalid("the JWKS file has \(set.keys.count) keys; at most \(Self.maximumKeys)")
        }
        var keys: [VerificationKey] = []
        var documents: [JWK] = []
        for (index, jwk) in set.keys.enumerated() {
            let name = jwk.keyID.map { "key '\($0)'" } ?? "key \(index + 1)"
            guard jwk.d == nil, jwk.p == nil, jwk.q == nil, jwk.dp == nil, jwk.dq == nil, jwk.qi == nil else {
                throw .invalid("\(name) in the JWKS file is a private key; register the public keys only")
            }
            if let use = jwk.use, use != "sig" { throw .invalid("\(name) in the JWKS file is for '\(use)', not 'sig'") }
            let verifying: [VerificationKey]
            do {
                verifying = try VerificationKey.keys(for: jwk)
            } catch {
                throw .invalid("\(name) in the JWKS file cannot verify signatures: \(Self.reason(error))")
            }
            var document = verifying[0].jwk
            if verifying.count > 1 { document.algorithm = nil }
            keys += verifying
            documents.append(document)
        }
        let ids = documents.compactMap(\.keyID)
        guard Set(ids).count == ids.count else { throw .invalid("the JWKS file names one kid twice") }
        self.keys = keys
        self.documents = documents
    }

    /// The normalised document to store.
    var jsonString: String {
        JWKSet(keys: documents).jsonString
    }

    /// The algorithms these keys verify, for discovery's sake and for the verifier.
    var algorithms: Set<SignatureAlgorithm> {
        Set(keys.map(\.algorithm))
    }

    private static func reason(_ error: KeyError) -> String {
        switch error {
        case .unsupportedKeyType(let type): "unsupported key type \(type) (use RSA, EC P-256 or Ed25519)"
        case .rsaKeyTooSmall(let bits): "an RSA key of \(bits) bits (at least 2048)"
        case .algorithmMismatch(let algorithm): "its alg \(algorithm) does not fit the key"
        case .invalidJWK(let member): "bad \(member)"
        default: "\(error)"
        }
    }
}
