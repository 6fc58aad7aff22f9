import Foundation
import PorticoStore

/// Hostile values in every parameter that reaches a store lookup or write, at every endpoint
/// that takes one, on whatever backend the harness runs: the answer must be the request's own
/// error (an OAuth JSON error, an error page, a 4xx), never a 5xx.
///
/// Why one probe for every backend: what a backend cannot hold differs (PostgreSQL's text
/// refuses NUL; SQLite's does not), and the provider must refuse it as bad input before it
/// reaches either. The values come from the committed fuzz corpora of the request parsers too,
/// so that what the fuzzers found is also sent through the whole server.
public enum BadInputProbe {
    /// The hand-picked values: NUL alone and inside text, control and non-characters, an
    /// over-long value, quotes and separators.
    public static let values: [String] = [
        "\u{0}", "a\u{0}b", "\u{0}\u{FFFF}", "\u{1}\u{7F}", "\u{FEFF}x", String(repeating: "a", count: 70_000),
        "'; DROP TABLE clients; --", "\\", "%", "é中文🙂", " ", "x\ny",
    ]

    /// Values read from the fuzz corpora of request parsers (`form`, `percent`, `user-code`,
    /// `redirect-uri`, `cookie`, `basic`), those that are text; at most `limit` per corpus.
    public static func corpusValues(in corpus: URL, limit: Int = 12) -> [String] {
        var found: [String] = []
        for name in ["form", "percent", "user-code", "redirect-uri", "cookie", "basic"] {
            let folder = corpus.appendingPathComponent(name)
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()) ?? []
            for file in files.prefix(limit) {
                guard let data = try? Data(contentsOf: folder.appendingPathComponent(file)),
                    let text = String(data: data, encoding: .utf8)
                else { continue }
                found.append(text)
            }
        }
        return found
    }

    /// Sends every value through every probe; returns one line per answer of 500 or more
    /// (empty when none).
    public static func failures(of harness: ProviderHarness, values: [String]) async throws -> [String] {
        let client = try harness.addClient(
            grants: [
                "authorization_code", "refresh_token", "client_credentials",
                "urn:ietf:params:oauth:grant-type:token-exchange",
            ])
        let publicClient = try harness.addClient(
            name: "TV App", type: .public, grants: ["urn:ietf:params:oauth:grant-type:device_code"])
        let credentials = ClientCredentials.of(client)
        var failures: [String] = []
        func record(_ label: String, _ value: String, _ reply: TestReply) {
            if reply.status >= 500 {
                failures.append(
                    "\(label) with \(value.debugDescription.prefix(40)): \(reply.status) \(reply.text.prefix(120))")
            }
        }
        let redirectless = harness.browser()
        for value in values {
            // The authorization endpoint, its every parameter in turn (an unknown client first).
            for name in [
                "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge", "resource", "login_hint",
                "prompt", "ui_locales", "response_mode", "max_age", "request", "request_uri",
            ] {
                let path = TestBrowser.authorizePath(client: client, overrides: [name: value])
                record("GET /oauth/authorize \(name)", value, try await redirectless.get(path))
            }
            // A pushed request's reference, and pushes (RFC 9126) with each parameter in turn.
            let pushedPath = TestBrowser.authorizePath(
                client: client, overrides: ["request_uri": "urn:ietf:params:oauth:request_uri:" + value])
            record("GET /oauth/authorize pushed request_uri", value, try await redirectless.get(pushedPath))
            for name in ["redirect_uri", "scope", "state", "code_challenge", "request", "dpop_jkt", "resource"] {
                let form =
                    [
                        ("response_type", "code"), ("redirect_uri", client.redirectURIs[0]), ("scope", "openid"),
                        ("code_challenge", PKCEPair().challenge), ("code_challenge_method", "S256"),
                    ].filter { $0.0 != name } + [(name, value)]
                // The probe's client was stored with the harness's default secret.
                let reply = try await harness.post("/oauth/par", form, client: .basic(id: client.id, secret: "secret"))
                record("POST /oauth/par \(name)", value, reply)
            }
            record(
                "POST /oauth/par client_id", value,
                try await harness.post("/oauth/par", [("response_type", "code")], client: .id(value)))
            // The token endpoint: each grant's parameters, and the client's own.
            let forms: [(String, [(String, String)], ClientCredentials)] = [
                (
                    "code",
                    [
                        ("grant_type", "authorization_code"), ("code", value), ("redirect_uri", value),
                        ("code_verifier", value),
                    ], credentials
                ),
                ("refresh", [("grant_type", "refresh_token"), ("refresh_token", value)], credentials),
                (
                    "refresh scope", [("grant_type", "refresh_token"), ("refresh_token", "x"), ("scope", value)],
                    credentials
                ),
                ("client_id", [("grant_type", "authorization_code"), ("code", "x")], .id(value)),
                ("basic", [("grant_type", "client_credentials")], .basic(id: value, secret: value)),
                ("post", [("grant_type", "client_credentials")], .post(id: value, secret: value)),
                ("grant_type", [("grant_type", value)], credentials),
                ("client_credentials scope", [("grant_type", "client_credentials"), ("scope", value)], credentials),
                ("resource", [("grant_type", "client_credentials"), ("resource", value)], credentials),
                (
                    "device_code",
                    [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", value)],
                    .id(publicClient.id)
                ),
                (
                    "amazon device_code",
                    [("grant_type", "device_code"), ("device_code", value), ("user_code", value)], .none
                ),
                (
                    "exchange",
                    [
                        ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", value),
                        ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"), ("actor_token", value),
                        ("actor_token_type", "urn:openid:params:token-type:device-secret"), ("audience", value),
                    ], credentials
                ),
            ]
            for (label, form, client) in forms {
                record("POST /oauth/token \(label)", value, try await harness.token(form, client: client))
            }
            record(
                "POST /oauth/revoke", value,
                try await harness.post("/oauth/revoke", [("token", value)], client: credentials))
            record("POST /oauth/introspect", value, try await harness.introspect(value, client: credentials))
            record(
                "POST /oauth/device_authorization", value,
                try await harness.post("/oauth/device_authorization", [("client_id", value), ("scope", value)]))
            record("GET /oauth/userinfo", value, try await harness.get("/oauth/userinfo", bearer: value))
            record("GET /user/profile", value, try await harness.get("/user/profile", bearer: value))
            record(
                "GET /oauth/account-links", value,
                try await harness.request(
                    "GET", "/oauth/account-links?host_user_id=\(ProviderHarness.formEncode(value))",
                    client: credentials))
            record(
                "POST /oauth/account-links", value,
                try await harness.post(
                    "/oauth/account-links", [("access_token", value), ("host_user_id", value)], client: credentials))
            record(
                "DELETE /oauth/account-links", value,
                try await harness.request(
                    "DELETE", "/oauth/account-links/\(ProviderHarness.formEncode(value))", client: credentials))
            // A header past the server's limit is refused (414/431) and the connection closed
            // before the body is read, so a client still sending that body sees a broken pipe:
            // an oversized header goes without a body, a body with a header that fits.
            let bearer = ["Authorization": "Bearer \(value)"]
            if value.utf8.count < 16 * 1_024 {
                record(
                    "POST /oauth/companion/consent", value,
                    try await harness.request(
                        "POST", "/oauth/companion/consent", form: [("ticket", value), ("decision", "allow")],
                        headers: bearer))
            } else {
                record(
                    "POST /oauth/companion/consent", value,
                    try await harness.request(
                        "POST", "/oauth/companion/consent", form: [("ticket", value), ("decision", "allow")]))
                record(
                    "POST /oauth/companion/consent bearer", value,
                    try await harness.request("POST", "/oauth/companion/consent", headers: bearer))
            }
            // FedCM, as the browser's FedCM fetches carry it (the gate passed, an origin).
            let webIdentity = ["Sec-Fetch-Dest": "webidentity", "Origin": "https://app.example"]
            for path in ["/fedcm/assertion", "/fedcm/disconnect"] {
                record(
                    "POST \(path)", value,
                    try await harness.request(
                        "POST", path,
                        form: [
                            ("client_id", value), ("account_id", value), ("account_hint", value), ("nonce", value),
                            ("params", value), ("param_code_challenge", value),
                        ], headers: webIdentity))
            }
            record(
                "GET /fedcm/client_metadata", value,
                try await harness.request(
                    "GET", "/fedcm/client_metadata?client_id=\(ProviderHarness.formEncode(value))",
                    headers: webIdentity))
            // Pages: what a browser sends, CSRF token and all.
            let browser = harness.browser()
            for path in [
                "/device?user_code=", "/signup/verify?token=", "/password/reset?token=", "/login?request=",
                "/consent?request=", "/oauth/logout?id_token_hint=", "/oauth/logout?client_id=",
                "/fedcm/continue?code_challenge_method=S256&client_id=",
            ] {
                record("GET \(path)", value, try await browser.get(path + ProviderHarness.formEncode(value)))
            }
            let login = try await browser.get("/login")
            if let csrf = login.hiddenField("csrf_token") {
                let pages: [(String, [(String, String)])] = [
                    ("/login", [("csrf_token", csrf), ("email", value), ("password", value)]),
                    ("/signup", [("csrf_token", csrf), ("email", value), ("name", value), ("password", value)]),
                    ("/password/forgot", [("csrf_token", csrf), ("email", value)]),
                    ("/device", [("csrf_token", csrf), ("user_code", value)]),
                ]
                for (path, fields) in pages {
                    record("POST \(path)", value, try await browser.post(path, fields))
                }
            }
        }
        return failures
    }
}
