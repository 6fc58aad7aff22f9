import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Waits for SIGINT or SIGTERM through dispatch signal sources.
///
/// The signals' default action (terminate at once) is replaced by SIG_IGN so that only the
/// sources see them and the server can drain before the process exits.
enum TerminationSignals {
    static func wait() {
        let signals = [SIGINT, SIGTERM]
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for number in signals {
            signal(number, SIG_IGN)
            sigaddset(&blocked, number)
        }
        // On Linux, libdispatch reads signals from a signalfd, which only sees a signal that is
        // blocked rather than discarded as ignored; block it in the waiting thread (normally the
        // main thread, whose mask later threads inherit).
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        let arrived = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "portico.termination-signals")
        let sources = signals.map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { arrived.signal() }
            source.resume()
            return source
        }
        arrived.wait()
        for source in sources {
            source.cancel()
        }
    }
}
