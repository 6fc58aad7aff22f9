import Foundation
import PorticoCrypto
import PorticoStore

/// `portico keys revoke KID`: a compromised key leaves the JWKS at once, and nothing it signed
/// verifies any more — unlike ``SigningKeyRotation``, which keeps the replaced key published
/// until its tokens expire.
///
/// If the key was its algorithm's signer, a new key takes over in the same transaction, so the
/// provider never lacks one. Running servers drop the key within seconds (they re-read the
/// keys every few seconds), without a restart; tokens it signed are then refused at userinfo,
/// introspection and by relying parties once they refetch the JWKS.
public enum SigningKeyRevocation {
    /// What one revocation did.
    public struct Revocation: Sendable, Equatable {
        /// The revoked (deleted) key.
        public let keyID: String
        /// Its algorithm.
        public let algorithm: String
        /// The key that became the signer in its place, when the revoked key was the signer.
        public let replacementKeyID: String?
    }

    /// Deletes the key `keyID` (making a new signer first if it was one), with an audit event.
    public static func revoke(
        keyID: String, in store: any Store, encryption: SigningKeyEncryption, now: Date = Date()
    ) throws(AdminError) -> Revocation {
        let existing: StoredSigningKey?
        do {
            existing = try store.signingKey(id: keyID)
        } catch {
            throw AdminError.wrapping(error)
        }
        guard let existing else { throw .notFound("no signing key '\(keyID)'; 'portico keys list' shows them") }
        var replacement: PorticoCrypto.SigningKey?
        if existing.isCurrent, let algorithm = SignatureAlgorithm(rawValue: existing.algorithm) {
            do {
                replacement = try PorticoCrypto.SigningKey.generate(algorithm)
            } catch {
                throw .storage("could not generate a \(algorithm.rawValue) key: \(error)")
            }
        }
        do {
            try store.transaction { transaction in
                guard try transaction.deleteSigningKey(id: keyID) else {
                    throw AdminError.notFound("no signing key '\(keyID)'")
                }
                if let replacement {
                    try transaction.insert(
                        StoredSigningKey(
                            id: replacement.keyID, algorithm: existing.algorithm,
                            privateKeyPEM: try encryption.seal(
                                pem: replacement.pemRepresentation, keyID: replacement.keyID),
                            isCurrent: true, createdAt: now))
                }
                let details: JSONValue = [
                    "alg": .string(existing.algorithm),
                    "replacement_kid": replacement.map { .string($0.keyID) } ?? .null,
                ]
                try transaction.append(
                    AuditEvent(
                        occurredAt: now, actor: "cli", action: "keys.revoke", subject: keyID,
                        details: details.jsonString))
            }
            try store.discardReplacedData()
        } catch {
            throw AdminError.wrapping(error)
        }
        return Revocation(keyID: keyID, algorithm: existing.algorithm, replacementKeyID: replacement?.keyID)
    }
}
