import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Cheap Argon2id settings for tests only; the provider's default stays the DESIGN's.
let pageTestHashing = PasswordHashingSettings(memoryKiB: 64, iterations: 1, parallelism: 1)

/// A provider started in-process on an ephemeral port with its own SQLite file, plus a second
/// handle on the same database for setting up users and clients and checking what was stored.
final class PageHarness: Sendable {
    let provider: IdentityProvider
    let store: any Store
    let directory: URL

    init(clock: ProtocolTestClock? = nil, metrics: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-authz-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = "sqlite:\(directory.path)/portico.db"
        var configuration = ProviderConfiguration(
            port: 0, databaseURL: try DatabaseURL(parsing: database), threads: 2, logRequests: false,
            passwordHashing: pageTestHashing)
        configuration.metrics = metrics
        if let clock { configuration.clock = { clock.now } }
        provider = try IdentityProvider(
            configuration: configuration, store: try openStore(url: database, longRunning: true))
        try provider.start()
        store = try openStore(url: database)
    }

    var base: String { "http://127.0.0.1:\(provider.port)" }
    /// Where the provider writes mail (next to its database).
    var outbox: URL { directory.appendingPathComponent("outbox") }
    var issuer: String { provider.issuer }

    /// Stops the server on its own thread (shutdown blocks) and removes the files.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                self.provider.shutdown()
                self.store.close()
                try? FileManager.default.removeItem(at: self.directory)
                continuation.resume()
            }
        }
    }

    /// Adds a person with `password`, hashed with `settings`.
    @discardableResult
    func addUser(
        email: String = "ann@example.com", name: String = "Ann Example", password: String = "correct horse",
        disabled: Bool = false, settings: PasswordHashingSettings = pageTestHashing
    ) throws -> UserRecord {
        let user = UserRecord(
            email: email, name: name, postalCode: "12345",
            passwordHash: try PasswordHasher(settings: settings).hash(password), isDisabled: disabled)
        try store.insert(user)
        return user
    }

    /// Adds a client.
    @discardableResult
    func addClient(
        name: String = "Example App", type: ClientType = .confidential,
        redirectURIs: [String] = ["https://app.example/callback"],
        scopes: [String] = ["openid", "profile", "profile:user_id", "postal_code", "email"],
        grants: [String] = ["authorization_code", "refresh_token"], logoURL: String? = nil,
        privacyURL: String? = "https://app.example/privacy"
    ) throws -> Client {
        let client = Client(
            name: name, type: type, secret: type == .confidential ? "secret" : nil, redirectURIs: redirectURIs,
            allowedScopes: scopes, allowedGrantTypes: grants, logoURL: logoURL, privacyURL: privacyURL)
        try store.insert(client)
        return client
    }

    /// Runs `body` against a fresh provider and always stops it.
    ///
    /// The provider starts on a thread of its own: making its first signing keys (RSA above
    /// all) would otherwise occupy the cooperative pool that its async handlers need.
    static func with(
        clock: ProtocolTestClock? = nil, metrics: Bool = false, _ body: (PageHarness) async throws -> Void
    ) async throws {
        let provider = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<PageHarness, any Error>) in
            Thread.detachNewThread {
                continuation.resume(with: Result { try PageHarness(clock: clock, metrics: metrics) })
            }
        }
        do {
            try await body(provider)
        } catch {
            await provider.stop()
            throw error
        }
        await provider.stop()
    }
}

/// Stops URLSession from following redirects: on Linux only a session-level delegate can.
final class PageRedirectRefuser: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// One answer, as tests look at it.
struct PageReply: Sendable {
    var status: Int
    var headers: [String: String]
    var text: String

    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    var location: String? { header("Location") }

    /// The `Set-Cookie` fields (URLSession on Linux folds them into one; split them again).
    var setCookies: [String] {
        guard let folded = header("Set-Cookie") else { return [] }
        var cookies: [String] = []
        var current = ""
        for part in folded.components(separatedBy: ", ") {
            let startsCookie = part.range(of: #"^[A-Za-z0-9_\-]+="#, options: .regularExpression) != nil
            if startsCookie && !current.isEmpty {
                cookies.append(current)
                current = part
            } else {
                current = current.isEmpty ? part : current + ", " + part
            }
        }
        if !current.isEmpty { cookies.append(current) }
        return cookies
    }

    /// The `Set-Cookie` field for `name`.
    func setCookie(_ name: String) -> String? {
        setCookies.first { $0.hasPrefix(name + "=") }
    }

    /// The value of hidden input `name` in the page (first occurrence).
    func hiddenField(_ name: String) -> String? {
        let pattern = #"<input type="hidden" name=""# + name + #"" value="([^"]*)">"#
        guard let range = text.range(of: pattern, options: .regularExpression) else { return nil }
        let match = String(text[range])
        guard let valueStart = match.range(of: #"value=""#) else { return nil }
        return String(match[valueStart.upperBound...].dropLast(2))
    }

    /// The query items of the redirect's `Location`.
    var redirectParameters: [String: String] {
        guard let location, let components = URLComponents(string: location) else { return [:] }
        var result: [String: String] = [:]
        for item in components.queryItems ?? [] { result[item.name] = item.value ?? "" }
        return result
    }
}

/// A minimal browser: a cookie jar, no automatic redirects, form posts.
final class PageBrowser: Sendable {
    let base: String
    private let session: URLSession
    private let jar = Mutex<[String: String]>([:])
    private let acceptLanguage: String?

    init(base: String, acceptLanguage: String? = nil) {
        self.base = base
        self.acceptLanguage = acceptLanguage
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 90
        session = URLSession(configuration: configuration, delegate: PageRedirectRefuser(), delegateQueue: nil)
    }

    /// The cookie `name` as the browser holds it.
    func cookie(_ name: String) -> String? { jar.withLock { $0[name] } }

    /// Sets or removes a cookie by hand.
    func setCookie(_ name: String, _ value: String?) { jar.withLock { $0[name] = value } }

    /// GET `target` (a path or an absolute URL on the provider).
    func get(_ target: String) async throws -> PageReply {
        try await send(target, method: "GET", body: nil)
    }

    /// POST form fields to `target`.
    func post(_ target: String, _ fields: [(String, String)]) async throws -> PageReply {
        let body = fields.map { "\(formEncode($0.0))=\(formEncode($0.1))" }.joined(separator: "&")
        return try await send(target, method: "POST", body: Data(body.utf8))
    }

    private func send(_ target: String, method: String, body: Data?) async throws -> PageReply {
        let url = try #require(URL(string: target.hasPrefix("http") ? target : base + target))
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let body {
            request.httpBody = body
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        let cookieHeader = jar.withLock { $0.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }
        if !cookieHeader.isEmpty { request.setValue(cookieHeader, forHTTPHeaderField: "Cookie") }
        if let acceptLanguage { request.setValue(acceptLanguage, forHTTPHeaderField: "Accept-Language") }
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers["\(name)"] = "\(value)" }
        let reply = PageReply(status: http.statusCode, headers: headers, text: String(decoding: data, as: UTF8.self))
        for cookie in reply.setCookies {
            let pair = cookie.split(separator: ";", maxSplits: 1)[0]
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals])
            let value = String(pair[pair.index(after: equals)...])
            let deletes = cookie.contains("Max-Age=0")
            jar.withLock { $0[name] = deletes ? nil : value }
        }
        return reply
    }

    private func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// A PKCE pair.
struct PagePKCE {
    let verifier = PKCE.makeVerifier()
    var challenge: String { PKCE.challenge(for: verifier) }
}

/// `/oauth/authorize?…` with the usual parameters, overridable (nil removes one).
func pageAuthorizePath(
    client: Client, pkce: PagePKCE = PagePKCE(), scope: String? = "openid profile",
    overrides: [String: String?] = [:], extra: [(String, String)] = []
) -> String {
    var parameters: [String: String?] = [
        "response_type": "code", "client_id": client.id, "redirect_uri": client.redirectURIs.first,
        "scope": scope, "state": "state-123", "nonce": "nonce-456", "code_challenge": pkce.challenge,
        "code_challenge_method": "S256",
    ]
    for (name, value) in overrides { parameters[name] = value }
    var items = parameters.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
    items.sort { $0.name < $1.name }
    items += extra.map { URLQueryItem(name: $0.0, value: $0.1) }
    var components = URLComponents()
    components.path = "/oauth/authorize"
    components.queryItems = items
    components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
    return components.string ?? "/oauth/authorize"
}

/// Signs in on the login page that `loginLocation` points to, returning the reply to the POST.
func pageSignIn(
    _ browser: PageBrowser, at loginLocation: String, email: String = "ann@example.com",
    password: String = "correct horse", remember: Bool = false
) async throws -> PageReply {
    let page = try await browser.get(loginLocation)
    #expect(page.status == 200)
    var fields = [
        ("csrf_token", try #require(page.hiddenField("csrf_token"))), ("email", email), ("password", password),
    ]
    if let request = page.hiddenField("request") { fields.append(("request", request)) }
    if remember { fields.append(("remember_me", "1")) }
    return try await browser.post("/login", fields)
}

/// Presses a consent button on the consent page at `consentLocation`.
func pageDecide(_ browser: PageBrowser, at consentLocation: String, _ decision: String) async throws -> PageReply {
    let page = try await browser.get(consentLocation)
    #expect(page.status == 200)
    return try await browser.post(
        "/consent",
        [
            ("csrf_token", try #require(page.hiddenField("csrf_token"))),
            ("request", try #require(page.hiddenField("request"))), ("decision", decision),
        ])
}

/// Runs a whole first authorization (sign in, Allow) and returns the final redirect.
func pageAuthorizeWithConsent(
    _ browser: PageBrowser, client: Client, pkce: PagePKCE = PagePKCE(), scope: String = "openid profile"
) async throws -> PageReply {
    let start = try await browser.get(pageAuthorizePath(client: client, pkce: pkce, scope: scope))
    var location = try #require(start.location)
    if location.hasPrefix("/login") {
        let login = try await pageSignIn(browser, at: location)
        location = try #require(login.location)
    }
    return try await pageDecide(browser, at: location, "allow")
}

/// Product scopes the tests register.
enum PageProductScopes {
    static let printing = ProductScope(name: "print:photos", description: "Print your photos")
}
