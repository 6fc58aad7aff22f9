import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Waits for SIGINT or SIGTERM, so `serve` removes its socket before it exits.
///
/// Unchecked: the signal sources are set up once in `init` and never touched again; they are
/// kept only so they stay alive.
final class StopSignal: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let stream: AsyncStream<Void>

    init() {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        self.stream = stream
        // Blocked as well as ignored, as PorticoHTTP's `TerminationSignals` does (the agent may
        // not import it): on Linux libdispatch reads signals from a signalfd, which sees only a
        // blocked signal; threads started after this inherit the mask.
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGINT)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            return source
        }
    }

    func wait() async {
        for await _ in stream { return }
    }
}
