import Foundation
import PorticoCrypto
import PorticoTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A temporary directory holding one SQLite database for a test, removed when the test ends.
///
/// Why: every admin command test runs the real binary against a real file, and none may see
/// another's data.
final class CLIDatabase {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-cli-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The `--database` value.
    var url: String { "sqlite:\(directory.path)/portico.db" }

    /// Runs `portico` with `arguments` plus `--database` for this database.
    ///
    /// Admin commands refuse a database that does not exist, so before the first one the
    /// database is made (schema only), as `portico serve` or `migrate` would have made it; a
    /// test that prepares the file itself (an older schema, a copy) does so before that.
    func portico(_ arguments: [String], stdin: String? = nil) throws -> (status: Int32, stdout: String, stderr: String)
    {
        let path = directory.appendingPathComponent("portico.db").path
        if !["migrate", "serve"].contains(arguments.first ?? ""), !FileManager.default.fileExists(atPath: path) {
            try openStore(url: url).close()
        }
        return try PorticoProcess.run(arguments + ["--database", url], stdin: stdin)
    }
}

extension ProviderHarness {
    /// Runs `portico` with `arguments` plus `--database` for the running provider's database.
    func portico(_ arguments: [String], stdin: String? = nil) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try PorticoProcess.run(arguments + ["--database", databaseURL], stdin: stdin)
    }
}

/// Parses a command's `--json` output as one JSON value.
func cliJSON(_ text: String) -> JSONValue? {
    JSONValue(parsing: Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8))
}

/// A URLSession that never follows redirects, so tests can read `Location` headers.
///
/// Why session-level: on Linux, URLSession ignores per-task delegates.
final class CLIRedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        // Tests send cookies by hand: a shared jar would mix the browsers of parallel tests.
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        return URLSession(configuration: configuration, delegate: CLIRedirectRefusal(), delegateQueue: nil)
    }()

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// Plain HTTP for the CLI and demo tests, never following redirects.
enum CLIHTTP {
    /// Sends `request` without following redirects; returns status, headers and body text.
    static func send(_ request: URLRequest) async throws -> (status: Int, headers: [String: String], body: String) {
        let (data, response) = try await CLIRedirectRefusal.session.data(for: request)
        let http = response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return (http?.statusCode ?? 0, headers, String(decoding: data, as: UTF8.self))
    }

    /// A GET of `url` without following redirects.
    static func get(_ url: String, cookie: String? = nil) async throws -> (
        status: Int, headers: [String: String], body: String
    ) {
        guard let target = URL(string: url) else { throw URLError(.badURL) }
        var request = URLRequest(url: target)
        if let cookie { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
        return try await CLIHTTP.send(request)
    }
}
