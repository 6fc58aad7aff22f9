import Foundation
import PorticoStore

/// What a person does in the browser, step by step through the real pages (their CSRF and
/// `request` fields included).
extension TestBrowser {
    /// `/oauth/authorize?…` with the usual parameters, overridable (nil removes one).
    public static func authorizePath(
        client: Client, pkce: PKCEPair = PKCEPair(), scope: String? = "openid profile",
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
    public func signIn(
        at loginLocation: String, email: String = ProviderHarness.defaultEmail,
        password: String = ProviderHarness.defaultPassword, remember: Bool = false
    ) async throws -> TestReply {
        let page = try await loaded(loginLocation)
        var fields = [("csrf_token", try page.field("csrf_token")), ("email", email), ("password", password)]
        if let request = page.hiddenField("request") { fields.append(("request", request)) }
        if remember { fields.append(("remember_me", "1")) }
        return try await post("/login", fields)
    }

    /// Presses a consent button (`allow`, `deny`) on the consent page at `consentLocation`.
    public func decide(at consentLocation: String, _ decision: String) async throws -> TestReply {
        let page = try await loaded(consentLocation)
        return try await post(
            "/consent",
            [
                ("csrf_token", try page.field("csrf_token")), ("request", try page.field("request")),
                ("decision", decision),
            ])
    }

    /// Runs a whole first authorization (sign in when asked, Allow) and returns the final redirect.
    public func authorizeWithConsent(
        client: Client, pkce: PKCEPair = PKCEPair(), scope: String = "openid profile"
    ) async throws -> TestReply {
        let start = try await get(Self.authorizePath(client: client, pkce: pkce, scope: scope))
        var location = try start.location.required("a redirect from /oauth/authorize (\(start.status))")
        if location.hasPrefix("/login") {
            let login = try await signIn(at: location)
            location = try login.location.required("a redirect after signing in (\(login.status))")
        }
        return try await decide(at: location, "allow")
    }

    /// Follows the `/device` pages from the code-entry form through sign-in (when `password`
    /// is given) to the device consent page, and returns that page.
    public func reachDeviceConsent(
        code: String, email: String = ProviderHarness.defaultEmail,
        password: String? = ProviderHarness.defaultPassword
    ) async throws -> TestReply {
        let form = try await loaded("/device")
        let entered = try await post("/device", [("csrf_token", try form.field("csrf_token")), ("user_code", code)])
        guard entered.status == 303 else { throw HarnessFailure("code entry said \(entered.status)") }
        var location = try entered.location.required("a redirect after the code entry")
        if location.hasPrefix("/login") {
            let password = try password.required("sign-in needed but no password given")
            let login = try await signIn(at: location, email: email, password: password)
            guard login.status == 303 else { throw HarnessFailure("sign-in said \(login.status)") }
            location = try login.location.required("a redirect after signing in")
        }
        guard location.hasPrefix("/device?request=") else {
            throw HarnessFailure("expected the device consent page, went to \(location)")
        }
        return try await get(location)
    }

    /// Presses `decision` on the device consent page `page`.
    public func decideDevice(on page: TestReply, _ decision: String) async throws -> TestReply {
        try await post(
            "/device",
            [
                ("csrf_token", try page.field("csrf_token")), ("request", try page.field("request")),
                ("decision", decision),
            ])
    }

    /// GETs a page that must answer 200.
    private func loaded(_ target: String) async throws -> TestReply {
        let page = try await get(target)
        guard page.status == 200 else { throw HarnessFailure("\(target) said \(page.status)") }
        return page
    }
}

extension TestReply {
    /// The hidden field `name`, which the page must have.
    fileprivate func field(_ name: String) throws -> String {
        try hiddenField(name).required("a hidden \(name) field in the page (status \(status))")
    }
}
