import Foundation

/// Opens a URL in the person's browser.
///
/// ``system`` follows the platform's conventions. On Linux and other desktops: `$BROWSER` (a
/// `:`-separated list of commands; `%s` stands for the URL, else it is appended), then
/// `xdg-open`; on macOS `open`. On iOS and iPadOS it offers nothing (the default agents are
/// also an app extension's, where `UIApplication.shared` is unavailable): apps pass
/// ``sharedApplication`` to hand URLs to Safari through `UIApplication.open`. A
/// command that cannot start or exits non-zero fails the open at once, naming the command,
/// so a sign-in never waits minutes for a browser that never came. Tests and embedding apps
/// pass their own closure with ``init(_:)``.
public struct BrowserOpener: Sendable {
    private let body: @Sendable (URL) async throws -> Void
    /// Whether this opener can work here; custom openers always can.
    let isAvailable: @Sendable () -> Bool

    /// An opener that runs `body`. It may return once the URL is handed over or when the
    /// browser exits; it throws when the browser could not be started.
    public init(_ body: @escaping @Sendable (URL) async throws -> Void) {
        self.init(isAvailable: { true }, body: body)
    }

    init(isAvailable: @escaping @Sendable () -> Bool, body: @escaping @Sendable (URL) async throws -> Void) {
        self.body = body
        self.isAvailable = isAvailable
    }

    /// Opens `url`.
    public func open(_ url: URL) async throws {
        try await body(url)
    }

    /// The platform's browser: `$BROWSER`, `xdg-open` or `open` on desktops; none on iOS (see
    /// ``sharedApplication``).
    public static var system: BrowserOpener { system(environment: ProcessInfo.processInfo.environment) }

    /// ``system`` as it behaves with `environment`.
    static func system(environment: [String: String]) -> BrowserOpener {
        #if os(macOS) || os(Linux) || os(Windows) || os(FreeBSD) || os(OpenBSD)
            return BrowserOpener(
                isAvailable: { hasSystemBrowser(environment: environment) },
                body: { url in
                    guard let command = systemCommand(for: url, environment: environment) else {
                        throw launchFailure("no browser found: set $BROWSER or install xdg-open")
                    }
                    try await run(command)
                })
        #elseif canImport(UIKit) && !os(watchOS)
            // `UIApplication.shared` is unavailable in app extensions, and this opener is the
            // default of every agent (so of extensions too): on iOS it offers nothing, and apps
            // that want Safari pass ``sharedApplication`` (an app, not an extension, API).
            return BrowserOpener(
                isAvailable: { false },
                body: { _ in
                    throw launchFailure("on iOS pass BrowserOpener.sharedApplication to open Safari")
                })
        #else
            return BrowserOpener(
                isAvailable: { false }, body: { _ in throw launchFailure("this platform has no browser to open") })
        #endif
    }

    /// The error of a browser that could not be started; ``AutomaticUserAgent`` then tries the
    /// next way to sign in.
    static func launchFailure(_ message: String, underlyingError: (any Error)? = nil) -> AuthorizationError {
        AuthorizationError(.invalidInput, message, underlyingError: underlyingError ?? BrowserLaunchFailure())
    }

    #if os(macOS) || os(Linux) || os(Windows) || os(FreeBSD) || os(OpenBSD)
        /// Runs `command` and waits for it: a launcher such as `xdg-open` exits at once (0 when
        /// the browser took the URL), a browser run directly may live until it is closed.
        private static func run(_ command: (executable: URL, arguments: [String])) async throws {
            let process = Process()
            process.executableURL = command.executable
            process.arguments = command.arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            let exit = ProcessExit()
            process.terminationHandler = { finished in exit.finish(finished.terminationStatus) }
            do { try process.run() } catch {
                throw launchFailure("cannot start the browser \(command.executable.path)", underlyingError: error)
            }
            let status = await exit.status()
            guard status == 0 else {
                throw launchFailure("the browser command \(command.executable.path) failed (exit status \(status))")
            }
        }
    #endif

    /// Whether ``system`` would find a browser in `environment`.
    static func hasSystemBrowser(environment: [String: String]) -> Bool {
        #if os(macOS)
            return true
        #else
            guard let url = URL(string: "http://127.0.0.1/") else { return false }
            if environment["BROWSER"].map({ !$0.isEmpty }) ?? false {
                return systemCommand(for: url, environment: environment) != nil
            }
            let desktop = environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil
            return desktop && systemCommand(for: url, environment: environment) != nil
        #endif
    }

    /// The program and arguments that open `url`.
    static func systemCommand(
        for url: URL, environment: [String: String]
    ) -> (executable: URL, arguments: [String])? {
        if let browsers = environment["BROWSER"], !browsers.isEmpty {
            for entry in browsers.split(separator: ":") {
                var words = entry.split(separator: " ").map(String.init)
                guard !words.isEmpty, let executable = find(words.removeFirst(), environment: environment) else {
                    continue
                }
                if words.contains("%s") {
                    words = words.map { $0 == "%s" ? url.absoluteString : $0 }
                } else {
                    words.append(url.absoluteString)
                }
                return (executable, words)
            }
        }
        #if os(macOS)
            let fallbacks = ["open"]
        #else
            let fallbacks = ["xdg-open"]
        #endif
        for name in fallbacks {
            if let executable = find(name, environment: environment) { return (executable, [url.absoluteString]) }
        }
        return nil
    }

    /// `name` as a path, or the first executable of that name on `$PATH`.
    private static func find(_ name: String, environment: [String: String]) -> URL? {
        if name.contains("/") {
            return FileManager.default.isExecutableFile(atPath: name) ? URL(fileURLWithPath: name) : nil
        }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
        }
        return nil
    }
}

/// Marks an ``AuthorizationError`` as "the browser could not be started".
struct BrowserLaunchFailure: Error {}

extension AuthorizationError {
    /// Whether this error says the browser could not be started (see ``BrowserOpener``).
    var isBrowserLaunchFailure: Bool { underlyingError is BrowserLaunchFailure }
}

/// A child process's exit status, awaited once.
private final class ProcessExit: Sendable {
    private let state = LockedState<(status: Int32?, waiter: CheckedContinuation<Int32, Never>?)>((nil, nil))

    func finish(_ status: Int32) {
        let waiter = state.withLock { current -> CheckedContinuation<Int32, Never>? in
            current.status = status
            defer { current.waiter = nil }
            return current.waiter
        }
        waiter?.resume(returning: status)
    }

    func status() async -> Int32 {
        await withCheckedContinuation { continuation in
            let known = state.withLock { current -> Int32? in
                if current.status == nil { current.waiter = continuation }
                return current.status
            }
            if let known { continuation.resume(returning: known) }
        }
    }
}
