import Foundation
import PorticoCrypto
import PorticoStore

/// `portico keys rotate`: a new signing key per algorithm becomes the signer, and the key it
/// replaces is retired — it signs nothing more but stays in the JWKS for ``retention``, so
/// every token it signed (access tokens and ID tokens live an hour, sealed sign-in requests
/// half an hour) still verifies at userinfo, introspection and relying parties until it
/// expires. After that the key is deleted: nothing valid can carry its signature any more.
///
/// Everything happens in the database, which running servers re-read every few seconds (see
/// `KeyRingRefresher`), so rotation needs no restart and works with several nodes.
public enum SigningKeyRotation {
    /// The algorithms Portico signs with, in the order commands list them.
    public static let algorithms = KeyRing.algorithms.map(\.rawValue)

    /// How long a retired key stays published: the longest lifetime of anything it signed
    /// (access and ID tokens), plus five minutes for relying parties' clocks.
    public static var retention: TimeInterval {
        let lifetimes = TokenLifetimes()
        return max(lifetimes.accessToken, lifetimes.idToken, PendingRequestSeal.lifetime) + 5 * 60
    }

    /// What one rotation did for one algorithm.
    public struct Rotation: Sendable, Equatable {
        /// The algorithm.
        public let algorithm: String
        /// The `kid` of the new signer.
        public let keyID: String
        /// The `kid` of the key it replaced, if there was one.
        public let previousKeyID: String?
        /// When the replaced key leaves the JWKS.
        public let previousPublishedUntil: Date?
    }

    /// The canonical spelling of `name` (`es256` → `ES256`), or a usage error listing the
    /// algorithms.
    public static func algorithm(named name: String) throws(AdminError) -> String {
        guard let match = algorithms.first(where: { $0.lowercased() == name.lowercased() }) else {
            throw .invalid("unknown algorithm '\(name)'; use one of \(algorithms.joined(separator: ", "))")
        }
        return match
    }

    /// Makes a new current key for each of `algorithms` and retires the keys they replace, in
    /// one transaction with an audit event per algorithm; the new keys are stored sealed with
    /// `encryption`.
    public static func rotate(
        algorithms: [String], in store: any Store, encryption: SigningKeyEncryption, now: Date = Date()
    ) throws(AdminError)
        -> [Rotation]
    {
        var generated: [(String, PorticoCrypto.SigningKey)] = []
        for name in algorithms {
            guard let algorithm = SignatureAlgorithm(rawValue: try algorithm(named: name)) else {
                throw .invalid("unknown algorithm '\(name)'")
            }
            do {
                generated.append((algorithm.rawValue, try PorticoCrypto.SigningKey.generate(algorithm)))
            } catch {
                throw .storage("could not generate a \(algorithm.rawValue) key: \(error)")
            }
        }
        do {
            return try store.transaction { transaction in
                try generated.map { algorithm, key in
                    let replaced = try transaction.signingKeys().filter {
                        $0.algorithm == algorithm && $0.state == .active
                    }
                    try transaction.insert(
                        StoredSigningKey(
                            id: key.keyID, algorithm: algorithm,
                            privateKeyPEM: try encryption.seal(pem: key.pemRepresentation, keyID: key.keyID),
                            isCurrent: true, createdAt: now))
                    for old in replaced { try transaction.retireSigningKey(id: old.id, at: now) }
                    let previous = replaced.first { $0.isCurrent } ?? replaced.last
                    let details: JSONValue = [
                        "alg": .string(algorithm), "previous_kid": previous.map { .string($0.id) } ?? .null,
                    ]
                    try transaction.append(
                        AuditEvent(
                            occurredAt: now, actor: "cli", action: "keys.rotate", subject: key.keyID,
                            details: details.jsonString))
                    return Rotation(
                        algorithm: algorithm, keyID: key.keyID, previousKeyID: previous?.id,
                        previousPublishedUntil: previous == nil ? nil : now.addingTimeInterval(retention))
                }
            }
        } catch {
            throw AdminError.wrapping(error)
        }
    }

    /// When a retired key leaves the JWKS; nil for an active key.
    public static func publishedUntil(_ key: StoredSigningKey) -> Date? {
        guard key.state == .retired else { return nil }
        return (key.retiredAt ?? key.createdAt).addingTimeInterval(retention)
    }

    /// Deletes retired keys whose ``retention`` has passed at `now` and returns their ids.
    /// Cheap when there are none: one read, no write.
    @discardableResult
    public static func deleteExpiredKeys(in store: any Store, now: Date = Date()) throws -> [String] {
        let expired = try store.read { try $0.signingKeys() }.filter { key in
            publishedUntil(key).map { $0 <= now } ?? false
        }
        guard !expired.isEmpty else { return [] }
        return try store.transaction { transaction in
            try expired.compactMap { key in
                guard try transaction.deleteSigningKey(id: key.id) else { return nil }
                try transaction.append(
                    AuditEvent(occurredAt: now, actor: "system", action: "keys.delete_retired", subject: key.id))
                return key.id
            }
        }
    }
}
