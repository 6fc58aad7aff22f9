import Foundation
import PorticoCrypto
import PorticoStore
import Synchronization

/// The parsed `private_key_jwt` keys of each client, so the token, revocation and
/// introspection endpoints do not parse a client's JWKS (JSON, then each key into OpenSSL) on
/// every request it authenticates with an assertion.
///
/// Why keyed by the registered text: a client comes from the ``ClientCache``, which re-reads a
/// registration at most a few seconds after it last did; an entry is used only while the
/// client's `jwks` is the text it was parsed from, so a key set changed with `portico client`
/// takes effect as soon as the changed client is read, with no invalidation of its own.
/// Bounded like the client cache: emptied when it reaches ``capacity`` entries.
///
/// A client that publishes its keys at a `jwks_uri` has them fetched with ``fetcher`` (https,
/// checked addresses, bounded time and size), kept for what the answer's `Cache-Control` says
/// (``DocumentCacheLifetime``), and fetched again before that when a JWS names a `kid` the kept
/// set lacks (a rotation at the client) — at most once per ``refetchInterval`` for one URL, so
/// a stream of made-up `kid`s cannot turn the provider into a client of the app's server.
final class ClientKeySetCache: Sendable {
    private struct Entry {
        let jwks: String
        let keySet: ClientKeySet
    }

    private struct RemoteEntry {
        let keySet: ClientKeySet
        /// Until when the set is used without fetching.
        let freshUntil: ContinuousClock.Instant
        /// When it was last fetched for an unknown `kid`.
        let refetchedAt: ContinuousClock.Instant?
    }

    /// The least time between two fetches of one `jwks_uri` for an unknown `kid`.
    static let refetchInterval: Duration = .seconds(10)
    /// Fetches `jwks_uri`s; nil refuses them (no keys).
    let fetcher: OutboundHTTPClient?
    private let remote = Mutex<[String: RemoteEntry]>([:])

    /// Most clients whose keys are kept at once.
    let capacity: Int
    private let parse: @Sendable (String) -> ClientKeySet?
    private let entries = Mutex<[String: Entry]>([:])

    /// A cache of at most `capacity` key sets, each made by `parse` (the registration check).
    init(
        capacity: Int = 10_000, fetcher: OutboundHTTPClient? = nil,
        parse: @escaping @Sendable (String) -> ClientKeySet? = { try? ClientKeySet(json: $0) }
    ) {
        self.capacity = capacity
        self.fetcher = fetcher
        self.parse = parse
    }

    /// The keys `client` registered, parsed once per registered text, or fetched from its
    /// `jwks_uri` (again when they lack `keyID`, the `kid` of the JWS about to be verified);
    /// nil without usable keys.
    ///
    /// Blocks while fetching: call it off the HTTP threads.
    func keySet(of client: Client, keyID: String? = nil) -> ClientKeySet? {
        if client.jwks == nil, let url = client.jwksURI { return remoteKeySet(at: url, keyID: keyID) }
        guard let jwks = client.jwks else { return nil }
        if let cached = entries.withLock({ $0[client.id] }), cached.jwks == jwks { return cached.keySet }
        guard let keySet = parse(jwks) else {
            entries.withLock { _ = $0.removeValue(forKey: client.id) }
            return nil
        }
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[client.id] = Entry(jwks: jwks, keySet: keySet)
        }
        return keySet
    }

    /// The `kid` in the protected header of the compact JWS `token`, if it names one.
    static func keyID(ofCompactJWS token: String) -> String? {
        guard let header = token.split(separator: ".", omittingEmptySubsequences: false).first,
            let bytes = Base64URL.decode(header)
        else { return nil }
        return JSONValue(parsing: bytes)?.objectValue?["kid"]?.stringValue
    }

    private func remoteKeySet(at url: String, keyID: String?) -> ClientKeySet? {
        let now = ContinuousClock.now
        let kept = remote.withLock { $0[url] }
        var forced = false
        if let kept {
            let knows = keyID.map { id in kept.keySet.keys.contains { $0.keyID == id } } ?? true
            let mayRefetch = kept.refetchedAt.map { now - $0 >= Self.refetchInterval } ?? true
            if now < kept.freshUntil && knows { return kept.keySet }
            if !knows && !mayRefetch { return kept.keySet }
            forced = !knows
        }
        guard let fetcher, let target = URL(string: url) else { return nil }
        let exchange = fetcher.getDocument(target, maximumBytes: ClientMetadataDocuments.maximumBytes)
        guard case .status(let status) = exchange.outcome, (200..<300).contains(status),
            let keySet = try? ClientKeySet(json: String(decoding: exchange.body, as: UTF8.self))
        else {
            // Kept only as a record of the refetch, so that failures are rate-limited too.
            if let kept, forced {
                remote.withLock {
                    $0[url] = RemoteEntry(keySet: kept.keySet, freshUntil: kept.freshUntil, refetchedAt: now)
                }
            }
            return nil
        }
        let lifetime = DocumentCacheLifetime(cacheControl: exchange.headers["cache-control"]).duration
        remote.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[url] = RemoteEntry(
                keySet: keySet, freshUntil: now + lifetime, refetchedAt: forced ? now : kept?.refetchedAt)
        }
        return keySet
    }
}
