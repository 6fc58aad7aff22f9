import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Waits for SIGINT or SIGTERM through dispatch signal sources.
///
/// The signals' default action (terminate at once) is replaced by SIG_IGN so that only the
/// sources see them and the server can drain before the process exits.
///
/// A command that announces it is ready (a banner that scripts wait for) calls ``catchNow()``
/// before starting its server and printing: otherwise a SIGTERM sent right after the banner
/// meets the default action (the process dies by the signal instead of exiting 0) or, once
/// ignored, a thread that does not block it yet, and is lost.
public enum TerminationSignals {
    /// The sources and the semaphore they signal, once installed.
    private struct Installed: @unchecked Sendable {
        // @unchecked: the sources are only created, resumed and cancelled under `installed`'s lock.
        let arrived: DispatchSemaphore
        let sources: [any DispatchSourceSignal]
    }

    private static let installed = Mutex<Installed?>(nil)

    /// Starts catching SIGINT and SIGTERM now, in the calling thread (normally the main thread,
    /// whose signal mask threads started later inherit); a signal from here on is kept for
    /// `wait()`. Idempotent.
    public static func catchNow() {
        installed.withLock { installed in
            guard installed == nil else { return }
            let signals = [SIGINT, SIGTERM]
            var blocked = sigset_t()
            sigemptyset(&blocked)
            for number in signals {
                signal(number, SIG_IGN)
                sigaddset(&blocked, number)
            }
            // On Linux, libdispatch reads signals from a signalfd, which only sees a signal
            // that is blocked rather than discarded as ignored; block it in this thread.
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            let arrived = DispatchSemaphore(value: 0)
            let queue = DispatchQueue(label: "portico.termination-signals")
            let sources = signals.map { number in
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { arrived.signal() }
                source.resume()
                return source
            }
            installed = Installed(arrived: arrived, sources: sources)
        }
    }

    /// Blocks until SIGINT or SIGTERM arrives (or arrived since ``catchNow()``).
    static func wait() {
        catchNow()
        guard let arrived = installed.withLock({ $0?.arrived }) else { return }
        arrived.wait()
        installed.withLock { installed in
            for source in installed?.sources ?? [] {
                source.cancel()
            }
            installed = nil
        }
    }
}
