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
final class ClientKeySetCache: Sendable {
    private struct Entry {
        let jwks: String
        let keySet: ClientKeySet
    }

    /// Most clients whose keys are kept at once.
    let capacity: Int
    private let parse: @Sendable (String) -> ClientKeySet?
    private let entries = Mutex<[String: Entry]>([:])

    /// A cache of at most `capacity` key sets, each made by `parse` (the registration check).
    init(capacity: Int = 10_000, parse: @escaping @Sendable (String) -> ClientKeySet? = { try? ClientKeySet(json: $0) })
    {
        self.capacity = capacity
        self.parse = parse
    }

    /// The keys `client` registered, parsed once per registered text; nil without usable keys.
    func keySet(of client: Client) -> ClientKeySet? {
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
}
