import Foundation

#if canImport(os)
    import os
#endif

/// State reached only under a lock: PorticoKit's one synchronization primitive.
///
/// The standard library's `Mutex` and `Atomic` need iOS 18 / macOS 15, which most apps cannot
/// require; this gives the same `withLock` shape from iOS 16 / macOS 13 on. On Apple platforms
/// it is an `OSAllocatedUnfairLock` (iOS 16+); elsewhere an `NSLock`. The state is only ever
/// touched inside `withLock`, which is what makes the class `Sendable`.
final class LockedState<State>: @unchecked Sendable {
    #if canImport(os)
        private let lock: OSAllocatedUnfairLock<State>
    #else
        private let lock = NSLock()
        private var state: State
    #endif

    /// A lock guarding `initialState`.
    init(_ initialState: State) {
        #if canImport(os)
            lock = OSAllocatedUnfairLock(uncheckedState: initialState)
        #else
            state = initialState
        #endif
    }

    /// Runs `body` with the state, holding the lock; `body` must not block or suspend. It
    /// throws what `body` throws, typed (as `Mutex.withLock` does).
    func withLock<Value, Failure: Error>(_ body: (inout State) throws(Failure) -> Value) throws(Failure) -> Value {
        #if canImport(os)
            // `withLockUnchecked` rethrows untyped errors: carry the typed one out in a Result.
            let outcome = lock.withLockUnchecked { state -> Result<Value, Failure> in
                do throws(Failure) { return .success(try body(&state)) } catch { return .failure(error) }
            }
            return try outcome.get()
        #else
            lock.lock()
            defer { lock.unlock() }
            return try body(&state)
        #endif
    }
}

extension LockedState where State == Bool {
    /// The flag's value.
    var value: Bool { withLock { $0 } }

    /// Sets the flag.
    func set() { withLock { $0 = true } }
}

extension LockedState where State == Int {
    /// Adds one and returns the new value (a fresh identifier).
    func increment() -> Int {
        withLock {
            $0 += 1
            return $0
        }
    }
}
