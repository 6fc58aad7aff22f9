import Foundation
import PorticoCrypto
import PorticoStore

/// `portico keys rotate`: publish first, sign later. A new key per algorithm is published in
/// the JWKS at once but starts signing only after ``publicationDelay`` — the JWKS's cache
/// lifetime plus the time a node takes to re-read the keys — so that no relying party holding
/// a cached JWKS (fetched before the key existed) meets a token signed with a key it does not
/// know. Until then the previous key keeps signing. When the new key's time comes, a running
/// server (``activateDueKeys(in:now:)``, from `KeyRingRefresher`) makes it the signer and
/// retires the previous one, which signs nothing more but stays in the JWKS for ``retention``,
/// so every token it signed (access tokens and ID tokens live an hour, sealed sign-in requests
/// half an hour) still verifies until it expires. After that the key is deleted.
///
/// Everything happens in the database, which running servers re-read every few seconds (see
/// `KeyRingRefresher`), so rotation needs no restart and works with several nodes. The first
/// start is different: with no key to overlap, its keys sign at once.
public enum SigningKeyRotation {
    /// The algorithms Portico signs with, in the order commands list them.
    public static let algorithms = KeyRing.algorithms.map(\.rawValue)

    /// How long a retired key stays published: the longest lifetime of anything it signed
    /// (access and ID tokens), plus five minutes for relying parties' clocks.
    public static var retention: TimeInterval {
        let lifetimes = TokenLifetimes()
        return max(lifetimes.accessToken, lifetimes.idToken, PendingRequestSeal.lifetime) + 5 * 60
    }

    /// How long a rotated key is published before it signs: the JWKS's `max-age`
    /// (``JWKSEndpoint/cacheLifetime``) plus the default interval at which nodes re-read the
    /// keys, since a node may publish the key that much later than the rotation.
    public static var publicationDelay: TimeInterval {
        TimeInterval(JWKSEndpoint.cacheLifetime) + ProviderConfiguration.defaultKeyRefreshSeconds
    }

    /// What one rotation did for one algorithm.
    public struct Rotation: Sendable, Equatable {
        /// The algorithm.
        public let algorithm: String
        /// The `kid` of the new key, published now.
        public let keyID: String
        /// When the new key starts signing.
        public let signsFrom: Date
        /// The `kid` of the key it replaces (which signs until ``signsFrom``), if there was one.
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

    /// Publishes a new key for each of `algorithms`, to sign from `now` + ``publicationDelay``,
    /// in one transaction with an audit event per algorithm; the new keys are stored sealed with
    /// `encryption`. The keys they replace go on signing until then.
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
                    let signsFrom = now.addingTimeInterval(publicationDelay)
                    let previous = try transaction.currentSigningKey(algorithm: algorithm)
                    try transaction.insert(
                        StoredSigningKey(
                            id: key.keyID, algorithm: algorithm,
                            privateKeyPEM: try encryption.seal(pem: key.pemRepresentation, keyID: key.keyID),
                            isCurrent: false, createdAt: now, signsFrom: signsFrom))
                    let details: JSONValue = [
                        "alg": .string(algorithm), "previous_kid": previous.map { .string($0.id) } ?? .null,
                        "signs_from": .string(ISO8601DateFormatter().string(from: signsFrom)),
                    ]
                    try transaction.append(
                        AuditEvent(
                            occurredAt: now, actor: "cli", action: "keys.rotate", subject: key.keyID,
                            details: details.jsonString))
                    return Rotation(
                        algorithm: algorithm, keyID: key.keyID, signsFrom: signsFrom, previousKeyID: previous?.id,
                        previousPublishedUntil: previous == nil ? nil : signsFrom.addingTimeInterval(retention))
                }
            }
        } catch {
            throw AdminError.wrapping(error)
        }
    }

    /// Whether `key` is published and waiting for its time to sign (`keys list`'s "published").
    public static func isWaiting(_ key: StoredSigningKey) -> Bool {
        key.state == .active && !key.isCurrent
    }

    /// What `keys list` calls the key's state: published (waiting to sign), active or retired.
    public static func stateName(of key: StoredSigningKey) -> String {
        isWaiting(key) ? "published" : key.state.rawValue
    }

    /// Makes each waiting key whose ``StoredSigningKey/signsFrom`` has come at `now` the signer
    /// of its algorithm and retires the keys it takes over from (the previous signer, and older
    /// waiting keys passed over); returns the activated ids. Of several due keys of one
    /// algorithm the newest wins. Cheap when there are none: one read, no write. Running it
    /// twice, or on two nodes at once, activates each key once: the transaction checks again
    /// that the key is still waiting.
    @discardableResult
    public static func activateDueKeys(in store: any Store, now: Date = Date()) throws -> [String] {
        let due = try store.read { try $0.signingKeys() }.filter { key in
            isWaiting(key) && (key.signsFrom ?? key.createdAt) <= now
        }
        guard !due.isEmpty else { return [] }
        return try store.transaction { transaction in
            var activated: [String] = []
            for algorithm in Set(due.map(\.algorithm)).sorted() {
                let keys = try transaction.signingKeys().filter { $0.algorithm == algorithm }
                let ready = keys.filter { isWaiting($0) && ($0.signsFrom ?? $0.createdAt) <= now }
                guard
                    let newest = ready.max(by: {
                        ($0.signsFrom ?? $0.createdAt, $0.id) < ($1.signsFrom ?? $1.createdAt, $1.id)
                    })
                else { continue }
                let replaced = keys.filter { key in
                    key.id != newest.id && key.state == .active && (key.isCurrent || ready.contains(key))
                }
                for old in replaced { try transaction.retireSigningKey(id: old.id, at: now) }
                try transaction.makeCurrentSigningKey(id: newest.id)
                let details: JSONValue = [
                    "alg": .string(algorithm), "replaced_kids": .array(replaced.map { .string($0.id) }),
                ]
                try transaction.append(
                    AuditEvent(
                        occurredAt: now, actor: "system", action: "keys.activate", subject: newest.id,
                        details: details.jsonString))
                activated.append(newest.id)
            }
            return activated
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
