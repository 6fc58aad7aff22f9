/// Delivers ``GrantChange``s to every stream of every manager on the same grant (same store,
/// provider and client), so a view that observes one manager sees another's refresh too.
final class GrantChangeHub: Sendable {
    static let shared = GrantChangeHub()

    private let listeners = LockedState<[String: [Int: AsyncStream<GrantChange>.Continuation]]>([:])
    private let counter = LockedState<Int>(0)

    /// A new stream of the changes of `key` from now on.
    func stream(for key: String) -> AsyncStream<GrantChange> {
        let (stream, continuation) = AsyncStream<GrantChange>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let id = counter.increment()
        listeners.withLock { $0[key, default: [:]][id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.listeners.withLock { all in
                all[key]?[id] = nil
                if all[key]?.isEmpty == true { all[key] = nil }
            }
        }
        return stream
    }

    /// Tells every stream of `key` about `change`.
    func publish(_ change: GrantChange, for key: String) {
        for continuation in listeners.withLock({ Array(($0[key] ?? [:]).values) }) { continuation.yield(change) }
    }
}
