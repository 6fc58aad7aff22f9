import Foundation
import Synchronization

/// Runs async work from one of the agent's connection threads and waits for it there.
///
/// Connection threads block in `poll`, so they are real threads, never the concurrency pool's
/// (two threads on two cores: a few waiting peers would starve every task). The async work
/// itself (URLSession) runs on the pool and never blocks it.
enum BlockingBridge {
    static func run<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) throws -> Value {
        let result = Mutex<Result<Value, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<Value, any Error>
            do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        guard let outcome = result.withLock({ $0 }) else { throw CancellationError() }
        return try outcome.get()
    }
}
