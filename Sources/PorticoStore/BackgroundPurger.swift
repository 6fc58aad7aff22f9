import Foundation

/// Deletes expired rows every `interval` until stopped, so that codes, sessions and device
/// authorizations do not pile up and lookups stay on small indexes.
///
/// Runs as a detached task; each purge is one short write transaction. Stopping (or releasing
/// the purger) cancels the task, which wakes it from its sleep at once.
public final class BackgroundPurger: Sendable {
    private let task: Task<Void, Never>

    /// Starts purging `store` every `interval`; `onError` hears failures (the loop goes on), and
    /// `onPurge` each report, for logs and metrics.
    public init(
        store: any Store, interval: Duration = .seconds(60),
        onPurge: @escaping @Sendable (PurgeReport) -> Void = { _ in },
        onError: @escaping @Sendable (any Error) -> Void = { _ in }
    ) {
        task = Task.detached(priority: .background) {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                do {
                    onPurge(try store.purgeExpired(now: Date()))
                } catch {
                    onError(error)
                }
            }
        }
    }

    deinit {
        task.cancel()
    }

    /// Stops purging; a purge already running finishes.
    public func stop() {
        task.cancel()
    }

    /// Stops purging and waits until the loop has ended, so that the store can be closed after.
    public func stopAndWait() async {
        task.cancel()
        await task.value
    }
}
