import Foundation
import PorticoServer
import PorticoStore
import Synchronization
import Testing

@testable import PorticoKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Cheap Argon2id for tests only.
let kitTestHashing = PasswordHashingSettings(memoryKiB: 64, iterations: 1, parallelism: 1)

/// A real Portico provider started in-process on an ephemeral port with its own SQLite file,
/// plus a handle on the same database for making people and apps and checking what happened.
final class KitHarness: Sendable {
    let server: IdentityProvider
    let store: any Store
    let directory: URL
    let password = "correct horse"

    private init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-kit-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = "sqlite:\(directory.path)/portico.db"
        server = try IdentityProvider(
            configuration: ProviderConfiguration(
                port: 0, databaseURL: try DatabaseURL(parsing: database), threads: 2, logRequests: false,
                passwordHashing: kitTestHashing),
            store: try openStore(url: database, longRunning: true))
        try server.start()
        store = try openStore(url: database)
    }

    var issuer: URL { URL(string: server.issuer)! }

    /// Runs `body` against a fresh provider (started on a thread of its own, since making its
    /// first keys would occupy the cooperative pool) and always stops it.
    static func with(_ body: (KitHarness) async throws -> Void) async throws {
        let harness = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<KitHarness, any Error>) in
            Thread.detachNewThread { continuation.resume(with: Result { try KitHarness() }) }
        }
        do {
            try await body(harness)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    private func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                self.server.shutdown()
                self.store.close()
                try? FileManager.default.removeItem(at: self.directory)
                continuation.resume()
            }
        }
    }

    /// A person who can sign in with ``password``.
    @discardableResult
    func addUser(name: String = "Ann Example", postalCode: String? = "10115") throws -> UserRecord {
        let user = UserRecord(
            email: "ann-\(UUID().uuidString.prefix(8).lowercased())@example.com", name: name, postalCode: postalCode,
            passwordHash: try PasswordHasher(settings: kitTestHashing).hash(password))
        try store.insert(user)
        return user
    }

    /// A public native app with the loopback redirect URI (any port matches).
    func addPublicClient(
        redirectURIs: [String] = ["http://127.0.0.1/callback"],
        grants: [String] = ["authorization_code", "refresh_token"]
    ) throws -> Client {
        let client = Client(
            name: "Kit Test App", type: .public, redirectURIs: redirectURIs,
            allowedScopes: ["openid", "profile", "profile:user_id", "postal_code", "email"], allowedGrantTypes: grants)
        try store.insert(client)
        return client
    }

    /// A confidential client (secret `secret`), used only to introspect tokens.
    func addResourceServer() throws -> Client {
        let client = Client(
            name: "Resource Server", type: .confidential, secret: "secret",
            redirectURIs: ["https://rs.example/callback"], allowedScopes: ["openid"],
            allowedGrantTypes: ["client_credentials"])
        try store.insert(client)
        return client
    }

    /// A manager for `client` on the discovered provider.
    func manager(
        for client: Client, store tokenStore: any TokenStore = InMemoryTokenStore(), userAgent: any UserAgent,
        refreshTimeout: TimeInterval = 30
    ) async throws -> AuthorizationManager {
        let provider = try await Provider.discover(issuer: issuer)
        return AuthorizationManager(
            provider: provider, clientID: client.id, redirectURI: URL(string: client.redirectURIs[0]),
            store: tokenStore, userAgent: userAgent, refreshTimeout: refreshTimeout)
    }

    /// POSTs a form to the provider without client authentication headers.
    func post(_ path: String, _ fields: [(String, String)]) async throws -> (status: Int, json: [String: ProfileValue])
    {
        var request = URLRequest(url: issuer.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(FormEncoding.encode(fields).utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, ProfileValue(parsing: Array(data))?.objectValue ?? [:])
    }

    /// Whether a resource server is told `accessToken` is active.
    func isActive(accessToken: String, introspectingAs resourceServer: Client) async throws -> Bool {
        let reply = try await post(
            "oauth/introspect", [("token", accessToken), ("client_id", resourceServer.id), ("client_secret", "secret")])
        #expect(reply.status == 200)
        return reply.json["active"]?.boolValue ?? false
    }

    /// Whether exactly one rotation led from the refresh token `earlier` to `current`: the
    /// provider keeps, per family, the current token and the one its last rotation replaced.
    func oneRotation(from earlier: String?, to current: String?) throws -> Bool {
        guard let earlier, let current, earlier != current,
            let replaced = try store.refreshToken(earlier), let now = try store.refreshToken(current)
        else { return false }
        return replaced.rotatedAt != nil && now.rotatedAt == nil && replaced.familyID == now.familyID
    }
}

/// Stops URLSession from following redirects: on Linux only a session-level delegate can.
final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// A person at a browser, reduced to HTTP: follows the authorization URL, posts the real login
/// and consent forms (with their CSRF and request fields), and finally requests the redirect
/// (the app's loopback listener) like a browser would.
final class SignInRobot: Sendable {
    let email: String
    let password: String
    let decision: String
    private let session: URLSession
    private let jar = Mutex<[String: String]>([:])
    /// The callback URL the robot delivered, once it has.
    let delivered = Mutex<URL?>(nil)

    init(email: String, password: String, decision: String = "allow") {
        self.email = email
        self.password = password
        self.decision = decision
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        configuration.timeoutIntervalForRequest = 60
        session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }

    /// An opener that runs the robot on its own task, returning at once as a browser launcher does.
    var opener: BrowserOpener {
        BrowserOpener { url in Task { try? await self.signIn(at: url) } }
    }

    /// The whole walk: authorize → login → consent → callback.
    func signIn(at authorizationURL: URL) async throws {
        var location = try await send(authorizationURL, form: nil)
        for _ in 0..<10 {
            guard let next = location else { return }
            if next.path == "/login" {
                let page = try await fetchPage(next)
                var fields = [
                    ("csrf_token", hidden("csrf_token", in: page) ?? ""), ("email", email), ("password", password),
                ]
                if let request = hidden("request", in: page) { fields.append(("request", request)) }
                location = try await send(URL(string: "/login", relativeTo: next)!.absoluteURL, form: fields)
            } else if next.path == "/consent" || (next.path == "/device" && next.query?.contains("request=") == true) {
                // The consent page, or device login's consent step at /device?request=….
                let page = try await fetchPage(next)
                location = try await send(
                    URL(string: next.path, relativeTo: next)!.absoluteURL,
                    form: [
                        ("csrf_token", hidden("csrf_token", in: page) ?? ""),
                        ("request", hidden("request", in: page) ?? ""),
                        ("decision", decision),
                    ])
            } else if next.host == "127.0.0.1", next.port != authorizationURL.port {
                delivered.withLock { $0 = next }
                _ = try await session.data(from: next)
                return
            } else {
                location = try await send(next, form: nil)
            }
        }
    }

    /// The page at `url` as this browser sees it (its cookies sent, redirects not followed).
    func visit(_ url: URL) async throws -> String {
        try await fetchPage(url)
    }

    private func fetchPage(_ url: URL) async throws -> String {
        let (data, _) = try await exchange(url, form: nil)
        return String(decoding: data, as: UTF8.self)
    }

    /// Sends a request and returns the redirect target, if any.
    private func send(_ url: URL, form: [(String, String)]?) async throws -> URL? {
        let (_, response) = try await exchange(url, form: form)
        guard let location = response.value(forHTTPHeaderField: "Location") else { return nil }
        return URL(string: location, relativeTo: url)?.absoluteURL
    }

    private func exchange(_ url: URL, form: [(String, String)]?) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url)
        if let form {
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(FormEncoding.encode(form).utf8)
        }
        let cookies = jar.withLock { $0.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }
        if !cookies.isEmpty { request.setValue(cookies, forHTTPHeaderField: "Cookie") }
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        if let folded = http.value(forHTTPHeaderField: "Set-Cookie") {
            // Linux folds several Set-Cookie fields into one; each cookie starts with NAME=.
            for part in folded.components(separatedBy: ", ") {
                let pair = part.split(separator: ";", maxSplits: 1)[0]
                guard let equals = pair.firstIndex(of: "="), !pair[..<equals].contains(" ") else { continue }
                let name = String(pair[..<equals])
                let value = String(pair[pair.index(after: equals)...])
                jar.withLock { $0[name] = part.contains("Max-Age=0") ? nil : value }
            }
        }
        return (data, http)
    }

    private func hidden(_ name: String, in page: String) -> String? {
        let marker = #"<input type="hidden" name=""# + name + #"" value=""#
        guard let start = page.range(of: marker) else { return nil }
        let rest = page[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end]).replacingOccurrences(of: "&amp;", with: "&")
    }
}
