import Foundation

/// The threads on which asynchronous handlers run, apart from Swift's cooperative pool.
///
/// Async handlers exist for work that waits or burns CPU for a while: Argon2id password
/// checks, database round trips, outbound HTTP. Run on the cooperative pool (one thread per
/// core), a few such handlers, or any code of the embedding process that blocks a cooperative
/// thread, would starve every other task, including the handlers that would free them. A pool
/// of its own, used as the handlers' task executor, keeps the server's slow work and the rest
/// of the process from waiting on each other.
///
/// Its threads run at a lower priority than the rest of the process (``ServerConfiguration/
/// workerNiceness``): under overload they hold the cores with long jobs, and the epoll threads,
/// which answer health checks and every synchronous route, would otherwise wait behind them in
/// the kernel's run queue (bench/soak measured them waiting two to three times as long as
/// they ran).
final class WorkerPool: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `head` and `isStopped` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0
    private var isStopped = false
    /// Worker threads that have not exited yet; `stop` waits for none.
    private var running = 0

    /// Starts `threadCount` worker threads (at least one), each with its nice value raised by
    /// `niceness` (0 leaves it as the starting thread's). `name` plus the index must fit the
    /// kernel's 15 bytes, or the threads keep the process's name in `top -H` and `perf`.
    init(threadCount: Int, niceness: Int = 0, name: String = "portico-work") {
        running = max(1, threadCount)
        for index in 0..<max(1, threadCount) {
            let threadName = "\(name)-\(index)"
            let thread = Thread { [self] in
                // Named from inside: Foundation's `Thread.name` set before `start()` does not
                // reach the kernel on Linux, and the threads kept their creator's name.
                ThreadPriority.nameCurrentThread(threadName)
                ThreadPriority.lowerCurrentThread(by: niceness)
                work()
                condition.lock()
                running -= 1
                condition.broadcast()
                condition.unlock()
            }
            thread.name = threadName
            thread.start()
        }
    }

    /// Queues a job of a task that prefers this executor.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        if isStopped {
            condition.unlock()
            // A task that outlived its server still has to finish; give it a thread of its own.
            Thread { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }.start()
            return
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the workers finish the queued jobs and waits until they have exited, for at most
    /// `timeout`, so that no worker runs while the process exits (whose teardown of libraries
    /// would race it); later jobs get a thread each. Returns whether every worker exited.
    @discardableResult
    func stop(timeout: Duration = .seconds(10)) -> Bool {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds))
        condition.lock()
        defer { condition.unlock() }
        isStopped = true
        condition.broadcast()
        while running > 0 {
            guard condition.wait(until: deadline) else { return running == 0 }
        }
        return true
    }

    private func work() {
        while let job = next() {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// The oldest queued job, waiting for one; nil once stopped and drained.
    private func next() -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count && !isStopped { condition.wait() }
        guard head < jobs.count else { return nil }
        let job = jobs[head]
        head += 1
        if head == jobs.count || head >= 1_024 {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }
}
