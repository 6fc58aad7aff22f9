import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import Testing

@testable import PorticoKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The browser flow end to end against a real provider: loopback listener, real login and
/// consent forms, code redemption with PKCE, ID token verified against the JWKS, profile.
@Suite(.serialized)
struct LoopbackFlowTests {
    @Test func signsInThroughTheLoopbackRedirectAndFetchesTheProfile() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser(name: "Ann Loopback", postalCode: "75001")
            let client = try harness.addPublicClient()
            let robot = SignInRobot(email: person.email, password: harness.password)
            let manager = try await harness.manager(
                for: client, userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener))

            let result = try await manager.authorize(AuthorizeRequest(scopes: [.openID, .profile, .postalCode]))

            #expect(result.accessToken?.isEmpty == false)
            #expect(Set(result.grantedScopes) == [.openID, .profile, .postalCode])
            #expect(result.user?.userID == person.id)
            #expect(result.user?.name == "Ann Loopback")
            #expect(result.user?.email == person.email)
            #expect(result.user?.postalCode == "75001")
            #expect(result.clientID == client.id)
            // The callback came to the loopback listener on an ephemeral port, not the registered one.
            let delivered = try #require(robot.delivered.withLock { $0 })
            #expect(delivered.path == "/callback" && delivered.port != nil)
            // The ID token verified against the JWKS, nonce and audience included.
            let grant = try #require(try manager.store.grant(for: manager.storeKey))
            #expect(grant.idTokenClaims?["sub"]?.stringValue == person.id)
            #expect(grant.refreshToken != nil)
            #expect(!"\(grant)".contains(grant.accessToken))
            #expect(!"\(result)".contains(grant.accessToken))
        }
    }

    @Test func aDeclinedConsentIsAccessDenied() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try harness.addPublicClient()
            let robot = SignInRobot(email: person.email, password: harness.password, decision: "deny")
            let manager = try await harness.manager(
                for: client, userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener))
            let error = await #expect(throws: AuthorizationError.self) {
                try await manager.authorize(AuthorizeRequest(scopes: [.profile]))
            }
            #expect(error?.code == .accessDenied)
            #expect(error?.oauthError == "access_denied")
            #expect(try manager.store.grant(for: manager.storeKey) == nil)
        }
    }

    @Test func theLWAShapedHandlerReportsTheResult() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try harness.addPublicClient()
            let robot = SignInRobot(email: person.email, password: harness.password)
            let manager = try await harness.manager(
                for: client, userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener))
            let outcome: (String?, Bool, AuthorizationError?) = await withCheckedContinuation { continuation in
                manager.authorize(AuthorizeRequest(scopes: [.profile])) { result, userDidCancel, error in
                    continuation.resume(returning: (result?.user?.userID, userDidCancel, error))
                }
            }
            #expect(outcome.0 == person.id)
            #expect(outcome.1 == false)
            #expect(outcome.2 == nil)
        }
    }

    @Test func theCodeGrantTypeHandsTheBackendACodeAndVerifier() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try harness.addPublicClient()
            let robot = SignInRobot(email: person.email, password: harness.password)
            let tokenStore = InMemoryTokenStore()
            let manager = try await harness.manager(
                for: client, store: tokenStore,
                userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener))
            let result = try await manager.authorize(
                AuthorizeRequest(scopes: [.profile], grantType: .authorizationCode))
            let code = try #require(result.authorizationCode)
            let verifier = try #require(result.codeVerifier)
            #expect(result.accessToken == nil)
            #expect(result.codeChallenge == PKCE.challenge(for: verifier))
            #expect(try tokenStore.grant(for: manager.storeKey) == nil)
            // The "backend" redeems it.
            let redeemed = try await harness.post(
                "oauth/token",
                [
                    ("grant_type", "authorization_code"), ("code", code),
                    ("redirect_uri", try #require(result.redirectURI).absoluteString), ("code_verifier", verifier),
                    ("client_id", client.id),
                ])
            #expect(redeemed.status == 200)
            #expect(redeemed.json["access_token"]?.stringValue != nil)
        }
    }

    @Test func cancellingMidFlowClosesTheListener() async throws {
        try await KitHarness.with { harness in
            let client = try harness.addPublicClient()
            let opened = AsyncStream<URL>.makeStream()
            let manager = try await harness.manager(
                for: client,
                userAgent: SystemBrowserUserAgent(opener: BrowserOpener { url in opened.continuation.yield(url) }),
                // Unpushed, so the opened URL names the listener's port in its redirect_uri.
                pushedAuthorization: .never)
            let task = Task { try await manager.authorize(AuthorizeRequest(scopes: [.profile])) }
            var iterator = opened.stream.makeAsyncIterator()
            let url = try #require(await iterator.next())
            let redirect = try #require(
                URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first {
                    $0.name == "redirect_uri"
                }?
                .value.flatMap(URL.init(string:)))
            let port = try #require(redirect.port)
            #expect(canConnect(port: port))

            task.cancel()
            let error = await #expect(throws: AuthorizationError.self) { try await task.value }
            #expect(error?.code == .cancelled)
            #expect(!canConnect(port: port))
        }
    }

    @Test func theListenerTimesOut() async throws {
        try await KitHarness.with { harness in
            let client = try harness.addPublicClient()
            let manager = try await harness.manager(
                for: client,
                userAgent: SystemBrowserUserAgent(timeout: .milliseconds(300), opener: BrowserOpener { _ in }))
            let error = await #expect(throws: AuthorizationError.self) {
                try await manager.authorize(AuthorizeRequest(scopes: [.profile]))
            }
            #expect(error?.code == .timedOut)
        }
    }

    /// The one test that really goes through `$BROWSER`: a script that posts the real forms.
    @Test func signsInThroughABrowserProgramNamedInTheEnvironment() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try harness.addPublicClient()
            let script = harness.directory.appendingPathComponent("browser.py")
            let log = harness.directory.appendingPathComponent("browser.log")
            try BrowserScript.text(email: person.email, password: harness.password, log: log.path)
                .write(to: script, atomically: true, encoding: .utf8)
            chmod(script.path, 0o700)
            let command = try #require(
                BrowserOpener.systemCommand(
                    for: URL(string: "http://127.0.0.1/x")!, environment: ["BROWSER": script.path + " %s"]))
            #expect(command.executable.path == script.path)
            setenv("BROWSER", script.path + " %s", 1)
            defer { unsetenv("BROWSER") }

            let manager = try await harness.manager(
                for: client, userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: .system))
            let result = try await manager.authorize(AuthorizeRequest(scopes: [.profile]))
            #expect(result.user?.email == person.email)
            // The app has its code as soon as the browser reached the loopback listener; the
            // script writes what the listener showed it a moment later, so wait for that (bounded).
            var logged = ""
            for _ in 0..<200 where !logged.contains("You are signed in") {
                try await Task.sleep(for: .milliseconds(50))
                logged = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            }
            #expect(logged.contains("You are signed in"))
        }
    }
}

/// Whether something listens on 127.0.0.1:`port`.
func canConnect(port: Int) -> Bool {
    let descriptor = socket(AF_INET, streamSocketType, 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// A `$BROWSER` program in Python's standard library: it follows the authorization URL, posts
/// the login and consent forms, requests the loopback callback and logs the page it got.
enum BrowserScript {
    static func text(email: String, password: String, log: String) -> String {
        #"""
        #!/usr/bin/env python3
        import http.cookiejar, re, sys, urllib.parse, urllib.request

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):
                return None

        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(NoRedirect, urllib.request.HTTPCookieProcessor(jar))

        def fetch(url, form=None):
            data = urllib.parse.urlencode(form).encode() if form is not None else None
            try:
                response = opener.open(url, data, timeout=30)
            except urllib.error.HTTPError as redirect:
                response = redirect
            body = response.read().decode()
            location = response.headers.get("Location")
            return body, (urllib.parse.urljoin(url, location) if location else None)

        def hidden(page, name):
            match = re.search('<input type="hidden" name="%s" value="([^"]*)">' % name, page)
            return match.group(1).replace("&amp;", "&") if match else ""

        start = sys.argv[1]
        provider = urllib.parse.urlsplit(start).netloc
        _, location = fetch(start)
        for _ in range(10):
            if location is None:
                break
            parts = urllib.parse.urlsplit(location)
            if parts.netloc != provider:
                page, _ = fetch(location)
                with open(\#(pythonString(log)), "w") as out:
                    out.write(page)
                break
            if parts.path == "/login":
                page, _ = fetch(location)
                form = {"csrf_token": hidden(page, "csrf_token"),
                        "email": \#(pythonString(email)), "password": \#(pythonString(password))}
                if hidden(page, "request"):
                    form["request"] = hidden(page, "request")
                _, location = fetch(urllib.parse.urljoin(location, "/login"), form)
            elif parts.path == "/consent":
                page, _ = fetch(location)
                _, location = fetch(urllib.parse.urljoin(location, "/consent"), {
                    "csrf_token": hidden(page, "csrf_token"), "request": hidden(page, "request"),
                    "decision": "allow"})
            else:
                _, location = fetch(location)
        """#
    }

    private static func pythonString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
