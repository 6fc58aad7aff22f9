import Foundation

/// Opens a URL in the person's browser.
///
/// ``system`` follows the desktop conventions: `$BROWSER` (a `:`-separated list of commands;
/// `%s` stands for the URL, else it is appended), then `xdg-open`, then macOS's `open`. Tests
/// and embedding apps pass their own closure with ``init(_:)``.
public struct BrowserOpener: Sendable {
    private let body: @Sendable (URL) async throws -> Void

    /// An opener that runs `body`; it should return once the URL is handed over, not when the
    /// person finishes.
    public init(_ body: @escaping @Sendable (URL) async throws -> Void) {
        self.body = body
    }

    /// Opens `url`.
    public func open(_ url: URL) async throws {
        try await body(url)
    }

    /// `$BROWSER`, `xdg-open`, or `open`, whichever exists first.
    public static let system = BrowserOpener { url in
        guard let command = systemCommand(for: url, environment: ProcessInfo.processInfo.environment) else {
            throw AuthorizationError(.invalidInput, "no browser found: set $BROWSER or install xdg-open")
        }
        let process = Process()
        process.executableURL = command.executable
        process.arguments = command.arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw AuthorizationError(
                .invalidInput, "cannot start the browser \(command.executable.path)", underlyingError: error)
        }
    }

    /// Whether ``system`` would find a browser in `environment`.
    static func hasSystemBrowser(environment: [String: String]) -> Bool {
        guard let url = URL(string: "http://127.0.0.1/") else { return false }
        return systemCommand(for: url, environment: environment) != nil
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
