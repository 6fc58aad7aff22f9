import PorticoStore
import Synchronization

/// Registered clients kept in memory for a few seconds, so the token, revocation and
/// introspection endpoints do not read the same row from the database on every request.
///
/// Why a short time-to-live and no invalidation messages: the admin commands write the shared
/// database directly (also while servers run, on any node), so there is nobody to send an
/// invalidation. Every node instead re-reads a client at most ``timeToLive`` after it last
/// did: a client removed or changed with `portico client` takes effect everywhere within
/// that time (five seconds by default), while a busy client is read a handful of times a
/// minute instead of thousands of times a second (the DESIGN's "hot read paths are cached").
///
/// Unknown client ids are never cached, so guessing ids cannot fill the memory, and the cache
/// is emptied when it reaches ``capacity`` entries.
final class ClientCache: Sendable {
    private struct Entry {
        let client: Client
        let readAt: ContinuousClock.Instant
    }

    /// The store clients are read from.
    let store: any Store
    /// How long a client read from the store is used without reading it again.
    let timeToLive: Duration
    /// Most clients kept at once.
    let capacity: Int
    private let entries = Mutex<[String: Entry]>([:])

    /// A cache over `store`.
    init(store: any Store, timeToLive: Duration = .seconds(5), capacity: Int = 10_000) {
        self.store = store
        self.timeToLive = timeToLive
        self.capacity = capacity
    }

    /// The client `id`, from memory when it was read less than ``timeToLive`` ago.
    func client(id: String) throws -> Client? {
        // An id no backend can hold names no client (and must not reach the store).
        guard StoredText.canHold(id) else { return nil }
        let now = ContinuousClock.now
        let cached = entries.withLock { $0[id] }
        if let cached, now - cached.readAt < timeToLive { return cached.client }
        guard let client = try store.client(id: id) else {
            entries.withLock { _ = $0.removeValue(forKey: id) }
            return nil
        }
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[id] = Entry(client: client, readAt: now)
        }
        return client
    }

    /// The client `id` if it was read less than ``timeToLive`` ago, without reading the store;
    /// nil when it is not in memory (or no longer fresh).
    func clientInMemory(id: String) -> Client? {
        let now = ContinuousClock.now
        guard let cached = entries.withLock({ $0[id] }), now - cached.readAt < timeToLive else { return nil }
        return cached.client
    }

    /// Forgets `id` (after this node changed or removed it), or every client.
    func forget(id: String? = nil) {
        entries.withLock { entries in
            if let id { entries.removeValue(forKey: id) } else { entries.removeAll() }
        }
    }
}

extension ProviderContext {
    /// Client authentication for the back-channel endpoints, reading clients through the cache.
    var clientAuthenticator: ClientAuthenticator {
        ClientAuthenticator(
            store: store, cache: clients,
            assertions: ClientAssertionVerifier(
                store: store, issuer: { [issuerIdentifier] in issuerIdentifier.current }, now: now,
                keySets: clientKeySets), metadataDocuments: clientMetadataDocuments, now: now)
    }
}
