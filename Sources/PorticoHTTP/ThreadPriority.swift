#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The calling thread's scheduling priority (its nice value), which on Linux is a per-thread
/// attribute: `setpriority(PRIO_PROCESS, 0, n)` changes only the thread that calls it.
///
/// The worker pool lowers its threads' priority so that, when the cores are contended, the
/// kernel runs the epoll threads first: they parse every request and answer the cheap ones
/// (health checks, constants, whatever a route answers synchronously) in microseconds, while a
/// worker may burn tens of milliseconds of CPU on one job. A higher nice value only shrinks a
/// thread's share while something of higher priority is runnable; with idle CPU it still
/// runs at full speed, so the slow work is delayed, never starved.
enum ThreadPriority {
    /// The highest nice value Linux accepts (the lowest priority short of `SCHED_IDLE`).
    static let lowest: Int32 = 19

    /// Raises the calling thread's nice value by `offset` (capped at ``lowest``); returns the
    /// new value, or nil when nothing changed (an offset of zero or less, a platform without
    /// per-thread nice values, or a refusal). Lowering one's own priority needs no privilege;
    /// raising it back would, so the pool never tries.
    @discardableResult
    static func lowerCurrentThread(by offset: Int) -> Int32? {
        #if os(Linux)
            guard offset > 0 else { return nil }
            errno = 0
            let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            guard errno == 0 else { return nil }
            let target = Int32(clamping: min(Int(lowest), Int(current) + offset))
            guard target > current else { return nil }
            guard setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, target) == 0 else { return nil }
            return target
        #else
            // Darwin's nice value belongs to the process; thread QoS would be the tool there.
            return nil
        #endif
    }

    /// Gives the calling thread `name` as the kernel shows it (`top -H`, `perf`,
    /// `/proc/…/task/…/comm`), cut to the 15 bytes Linux keeps.
    static func nameCurrentThread(_ name: String) {
        #if os(Linux)
            // What `pthread_setname_np` does, which Swift's Glibc module does not export.
            let descriptor = open("/proc/thread-self/comm", O_WRONLY)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            let bytes = Array(name.utf8.prefix(15))
            _ = bytes.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count) }
        #endif
    }
}
