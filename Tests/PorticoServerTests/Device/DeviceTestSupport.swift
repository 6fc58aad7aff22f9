import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore
import Testing

@testable import PorticoServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A provider with every protocol route and page, a clock the test moves, a real SQLite file
/// and real HTTP: what device login needs (the token endpoint, `/device`, `/login`).
final class DeviceHarness: @unchecked Sendable {
    let directory: URL
    let store: any Store
    let clock = ProtocolTestClock()
    let context: ProviderContext
    private let server: HTTPServer

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-device-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try openStore(url: "sqlite:\(directory.path)/portico.db")
        let clock = self.clock
        context = ProviderContext(
            issuer: "http://127.0.0.1", store: store, keys: try KeyRing(store: store),
            passwords: PasswordHasher(settings: pageTestHashing), now: { clock.now })
        let router = Router()
        ProtocolRoutes.register(on: router, context: context)
        try PageRoutes.register(on: router, context: context)
        server = HTTPServer(
            configuration: ServerConfiguration(port: 0, threads: 2, logRequests: false), router: router)
        try server.start()
        context.setIssuer("http://127.0.0.1:\(server.port)")
    }

    var port: UInt16 { server.port }
    var base: String { context.issuer }

    /// Runs `body` against a fresh harness (made off the cooperative pool: RSA key generation
    /// is slow) and always stops it.
    static func with(_ body: (DeviceHarness) async throws -> Void) async throws {
        let harness = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<DeviceHarness, any Error>) in
            Thread.detachNewThread { continuation.resume(with: Result { try DeviceHarness() }) }
        }
        do {
            try await body(harness)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                self.server.shutdown()
                self.store.close()
                try? FileManager.default.removeItem(at: self.directory)
                continuation.resume()
            }
        }
    }

    // MARK: Setup

    @discardableResult
    func addUser(email: String = "ann@example.com", name: String = "Ann Example", password: String = "correct horse")
        throws -> UserRecord
    {
        let user = UserRecord(
            email: email, name: name, postalCode: "12345",
            passwordHash: try PasswordHasher(settings: pageTestHashing).hash(password))
        try store.insert(user)
        return user
    }

    /// A TV app: public unless `secret` is given, registered for the device grant (and refresh).
    func addDeviceClient(
        name: String = "Living Room TV", secret: String? = nil,
        grants: [String] = [DeviceCodeGrant.grantType, "refresh_token"],
        scopes: [String] = ["openid", "profile", "profile:user_id", "postal_code", "email"]
    ) throws -> Client {
        let client = Client(
            name: name, type: secret == nil ? .public : .confidential, secret: secret, redirectURIs: [],
            allowedScopes: scopes, allowedGrantTypes: grants)
        try store.insert(client)
        return client
    }

    // MARK: HTTP

    /// POSTs a form, optionally with HTTP Basic client authentication.
    func post(_ path: String, _ form: [(String, String)], basic: (id: String, secret: String)? = nil) async throws
        -> ProtocolReply
    {
        let body = Data(
            form.map { "\(ProtocolHarness.formEncode($0.0))=\(ProtocolHarness.formEncode($0.1))" }
                .joined(separator: "&").utf8)
        if let basic {
            let raw = "\(ProtocolHarness.formEncode(basic.id)):\(ProtocolHarness.formEncode(basic.secret))"
            return try ProtocolRawHTTP.send(
                port: port, method: "POST", path: path,
                headers: [
                    "Content-Type": "application/x-www-form-urlencoded",
                    "Authorization": "Basic \(Data(raw.utf8).base64EncodedString())",
                ], body: body)
        }
        let url = try #require(URL(string: base + path))
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let (data, response) = try await ProtocolHarness.session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        return ProtocolReply(status: http.statusCode, headers: fields, body: data)
    }

    func get(_ path: String, bearer: String? = nil) async throws -> ProtocolReply {
        let url = try #require(URL(string: base + path))
        var request = URLRequest(url: url)
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await ProtocolHarness.session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        return ProtocolReply(status: http.statusCode, headers: fields, body: data)
    }

    /// A started device login, as the device saw it.
    struct Started {
        let deviceCode: String
        let userCode: String
        let reply: ProtocolReply
    }

    /// Starts a device login for a public `client` in the RFC 8628 dialect.
    func start(_ client: Client, scope: String = "openid profile") async throws -> Started {
        let reply = try await post(
            DeviceAuthorizationEndpoint.path, [("client_id", client.id), ("scope", scope)])
        try #require(reply.status == 200, "device authorization said \(reply.status) \(reply.text)")
        return Started(
            deviceCode: try #require(reply.string("device_code")), userCode: try #require(reply.string("user_code")),
            reply: reply)
    }

    /// Starts a device login through Login with Amazon's code-pair path.
    func startAmazon(_ client: Client, scope: String = "profile") async throws -> Started {
        let reply = try await post(
            DeviceAuthorizationEndpoint.amazonPath,
            [("response_type", "device_code"), ("client_id", client.id), ("scope", scope)])
        try #require(reply.status == 200, "codepair said \(reply.status) \(reply.text)")
        return Started(
            deviceCode: try #require(reply.string("device_code")), userCode: try #require(reply.string("user_code")),
            reply: reply)
    }

    /// One RFC 8628 poll by a public client.
    func poll(_ started: Started, clientID: String) async throws -> ProtocolReply {
        try await post(
            "/oauth/token",
            [("grant_type", DeviceCodeGrant.grantType), ("client_id", clientID), ("device_code", started.deviceCode)])
    }

    /// One Login with Amazon poll: device and user code, no client id.
    func pollAmazon(_ started: Started, userCode: String? = nil, path: String = "/auth/o2/token") async throws
        -> ProtocolReply
    {
        try await post(
            path,
            [
                ("grant_type", "device_code"), ("device_code", started.deviceCode),
                ("user_code", userCode ?? started.userCode),
            ])
    }

    /// Approves a started login as `user` straight in the store (the page flow has tests of
    /// its own).
    func approve(_ started: Started, as user: UserRecord) throws {
        let now = clock.now
        let approved = try store.transaction {
            try $0.approveDeviceAuthorization(userCode: started.userCode, userID: user.id, authTime: now, now: now)
        }
        try #require(approved)
    }
}

/// Follows the `/device` pages in `browser` from the code-entry form through sign-in (when
/// `password` is given) to the device consent page, and returns that page.
func deviceReachConsent(
    _ browser: PageBrowser, code: String, email: String = "ann@example.com", password: String? = "correct horse"
) async throws -> PageReply {
    let form = try await browser.get("/device")
    #expect(form.status == 200)
    let entered = try await browser.post(
        "/device", [("csrf_token", try #require(form.hiddenField("csrf_token"))), ("user_code", code)])
    #expect(entered.status == 303, "code entry said \(entered.status)")
    var location = try #require(entered.location)
    if location.hasPrefix("/login") {
        let password = try #require(password, "sign-in needed but no password given")
        let login = try await pageSignIn(browser, at: location, email: email, password: password)
        #expect(login.status == 303)
        location = try #require(login.location)
    }
    #expect(location.hasPrefix("/device?request="))
    return try await browser.get(location)
}

/// Presses `decision` on the device consent page `page`.
func deviceDecide(_ browser: PageBrowser, on page: PageReply, _ decision: String) async throws -> PageReply {
    try await browser.post(
        "/device",
        [
            ("csrf_token", try #require(page.hiddenField("csrf_token"))),
            ("request", try #require(page.hiddenField("request"))), ("decision", decision),
        ])
}
