import Foundation
import PorticoStore

/// Keeps a running provider's ``KeyRing`` in step with the database: every `interval` it
/// makes rotated keys whose time has come the signers
/// (``SigningKeyRotation/activateDueKeys(in:now:)``), deletes retired keys whose tokens have all expired (``SigningKeyRotation/deleteExpiredKeys(in:now:)``)
/// and reloads the ring if the stored keys changed.
///
/// Why a loop rather than a signal: `portico keys rotate` may run in another process or on
/// another node, and the database is the only thing they share. One read of a handful of rows
/// every few seconds is all it costs; PEMs are parsed only after a change. Runs as a detached
/// task; stopping (or releasing the refresher) cancels it.
final class KeyRingRefresher: Sendable {
    private let task: Task<Void, Never>

    /// Starts refreshing `keys` from `store` every `interval`; `onError` hears failures (the
    /// loop goes on, serving the keys it has).
    init(
        keys: KeyRing, store: any Store, interval: Duration, now: @escaping @Sendable () -> Date = { Date() },
        onError: @escaping @Sendable (any Error) -> Void = { _ in }
    ) {
        task = Task.detached(priority: .utility) {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                do {
                    try SigningKeyRotation.activateDueKeys(in: store, now: now())
                    try SigningKeyRotation.deleteExpiredKeys(in: store, now: now())
                    try keys.reloadIfChanged()
                } catch {
                    onError(error)
                }
            }
        }
    }

    deinit {
        task.cancel()
    }

    /// Stops refreshing.
    func stop() {
        task.cancel()
    }

    /// Stops refreshing and waits until a refresh under way has finished, so that the store
    /// can be closed after.
    func stopAndWait() async {
        task.cancel()
        await task.value
    }
}
