import Synchronization

/// A map from keys to values that are costly to make and the same every time (a parsed key, a
/// normalised URL), shared by the threads of a node, holding at most ``capacity`` entries.
///
/// Past ``capacity`` distinct keys it starts again empty, so a caller sending a new key with
/// every request costs what it would cost without the cache and no more memory. The lock is
/// held only for a lookup or an insert, never while a value is made; two threads that miss at
/// once both make it, and the second insert wins, which is harmless for values that depend on
/// the key alone. A value `make` refuses is not cached, so it is refused again each time.
public final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// How many distinct keys are kept before the cache is emptied.
    public let capacity: Int
    private let entries = Mutex<[Key: Value]>([:])

    /// An empty cache that keeps at most `capacity` entries.
    public init(capacity: Int = 4096) {
        self.capacity = max(1, capacity)
    }

    /// How many entries are cached now.
    public var count: Int {
        entries.withLock { $0.count }
    }

    /// The value cached for `key`, or the one `make` makes (then cached).
    public func value<Failure: Error>(for key: Key, orMake make: () throws(Failure) -> Value) throws(Failure) -> Value {
        if let cached = entries.withLock({ $0[key] }) { return cached }
        let value = try make()
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = value
        }
        return value
    }
}
