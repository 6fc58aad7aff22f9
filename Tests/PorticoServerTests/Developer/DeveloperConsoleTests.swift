import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// The developer console (`/developer`) over real HTTP on SQLite: the terms, the new-app form
/// checked by the command line's path, the secret shown once, rotation with its 24-hour
/// overlap at the token endpoint, deletion, other people's apps, and forged forms.
@Suite struct DeveloperConsoleTests {
    /// Signs `email` in at `/developer` and, when `accept`, accepts the terms.
    static func developer(
        _ provider: ProviderHarness, email: String = ProviderHarness.defaultEmail, accept: Bool = true
    ) async throws -> TestBrowser {
        let browser = TestBrowser(base: provider.base)
        let first = try await browser.get("/developer")
        #expect(first.status == 302)
        #expect(first.location == "/login?return_to=%2Fdeveloper")
        let loginPage = try await browser.get(try #require(first.location))
        let login = try await browser.post(
            "/login",
            [
                ("csrf_token", try #require(loginPage.hiddenField("csrf_token"))), ("email", email),
                ("password", ProviderHarness.defaultPassword),
                ("return_to", try #require(loginPage.hiddenField("return_to"))),
            ])
        #expect(login.location == "/developer")
        if accept {
            let terms = try await browser.get("/developer")
            let accepted = try await browser.post(
                "/developer", [("csrf_token", try #require(terms.hiddenField("csrf_token"))), ("accept_terms", "yes")])
            #expect(accepted.status == 303)
        }
        return browser
    }

    /// Creates a web app in `browser`'s console; returns its id and the secret its page showed.
    static func createWebApp(_ browser: TestBrowser, name: String = "Console App") async throws -> (String, String) {
        let form = try await browser.get("/developer/apps/new")
        let created = try await browser.post(
            "/developer/apps/new",
            [
                ("csrf_token", try #require(form.hiddenField("csrf_token"))), ("name", name), ("app_type", "web"),
                ("redirect_uri", "https://app.example/callback\nhttps://app.example/other"),
                ("web_origin", "https://app.example"), ("logo_url", ""), ("privacy_url", "https://app.example/privacy"),
            ])
        #expect(created.status == 303)
        let location = try #require(created.location)
        #expect(location.hasPrefix("/developer/apps/"))
        let id = String(location.dropFirst("/developer/apps/".count))
        let page = try await browser.get(location)
        #expect(page.status == 200)
        return (id, try #require(secret(on: page)))
    }

    /// The text of `id="client-secret"`, if the page shows one.
    static func secret(on page: TestReply) -> String? {
        guard let start = page.text.range(of: #"id="client-secret">"#) else { return nil }
        return String(page.text[start.upperBound...].prefix { $0 != "<" })
    }

    @Test func theTermsMustBeAcceptedOnceWithTheBoxTicked() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let browser = try await Self.developer(provider, accept: false)
            let terms = try await browser.get("/developer")
            #expect(terms.status == 200)
            #expect(terms.text.contains(#"name="accept_terms""#))
            #expect(try await browser.get("/developer/apps/new").location == "/developer")
            let csrf = try #require(terms.hiddenField("csrf_token"))

            let unticked = try await browser.post("/developer", [("csrf_token", csrf)])
            #expect(unticked.status == 400)
            #expect(unticked.text.contains("Tick the box to accept the developer terms."))
            let forged = try await browser.post("/developer", [("csrf_token", "nope"), ("accept_terms", "yes")])
            #expect(forged.status == 403)
            let missing = try await browser.post("/developer", [("accept_terms", "yes")])
            #expect(missing.status == 403)
            #expect(try provider.store.read { try $0.developerTermsAcceptedAt(userID: user.id) } == nil)

            let accepted = try await browser.post("/developer", [("csrf_token", csrf), ("accept_terms", "yes")])
            #expect(accepted.status == 303)
            #expect(try provider.store.read { try $0.developerTermsAcceptedAt(userID: user.id) } != nil)
            let list = try await browser.get("/developer")
            #expect(list.text.contains(#"id="no-apps""#))
            #expect(list.text.contains(#"href="/developer/apps/new""#))
            #expect(try await browser.get("/developer/apps/new").status == 200)
        }
    }

    @Test func aNewAppIsCheckedWithTheCommandLinesWordsAndKeepsWhatWasTyped() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let browser = try await Self.developer(provider)
            let before = try provider.store.clients().count
            let cases: [(String, String, String)] = [
                ("Bad App", "http://app.example/cb", "http://app.example/cb"),
                ("", "https://app.example/cb", "https://app.example/cb"),
                ("No Redirect", "", ""),
                ("Fragment", "https://app.example/cb#x", "https://app.example/cb#x"),
            ]
            for (name, redirect, kept) in cases {
                // What `portico client add` says for the same values.
                var cli = ClientRegistration(name: name, redirectURIs: redirect.isEmpty ? [] : [redirect])
                cli.isVerified = false
                var expected = ""
                do {
                    _ = try cli.register(in: provider.store)
                    Issue.record("the command line accepted \(name) \(redirect)")
                } catch {
                    expected = (error as? AdminError)?.description ?? "\(error)"
                }
                let form = try await browser.get("/developer/apps/new")
                let reply = try await browser.post(
                    "/developer/apps/new",
                    [
                        ("csrf_token", try #require(form.hiddenField("csrf_token"))), ("name", name),
                        ("app_type", "web"), ("redirect_uri", redirect), ("web_origin", ""),
                    ])
                #expect(reply.status == 400, "\(name)")
                #expect(reply.text.contains(HTML.escape(expected)), "\(expected) in \(reply.text)")
                #expect(reply.text.contains(">\(HTML.escape(kept))</textarea>"))
                #expect(reply.text.contains(#"value="\#(HTML.escape(name))""#))
            }
            let origin = try await browser.get("/developer/apps/new")
            let badOrigin = try await browser.post(
                "/developer/apps/new",
                [
                    ("csrf_token", try #require(origin.hiddenField("csrf_token"))), ("name", "Origins"),
                    ("app_type", "web"), ("redirect_uri", "https://app.example/cb"),
                    ("web_origin", "https://app.example/path"),
                ])
            #expect(badOrigin.status == 400)
            #expect(badOrigin.text.contains("must be only a scheme, a host and a port"))
            #expect(try provider.store.clients().count == before)
        }
    }

    @Test func theSecretIsShownOnceAndTheOldOneWorksForADayAfterRotation() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let browser = try await Self.developer(provider)
            let (id, secret) = try await Self.createWebApp(browser)
            let stored = try #require(try provider.store.client(id: id))
            #expect(stored.type == .confidential)
            #expect(!stored.isVerified)
            #expect(stored.secretHash == SecretHash.digest(secret))
            let again = try await browser.get("/developer/apps/\(id)")
            #expect(again.text.contains(#"id="client-id">\#(id)<"#))
            #expect(!again.text.contains("client-secret"))
            #expect(!again.text.contains(secret))
            #expect(try await browser.get("/developer").text.contains("Console App"))

            // A forged rotation changes nothing.
            let csrf = try #require(again.hiddenField("csrf_token"))
            let forged = try await browser.post("/developer/apps/\(id)", [("action", "rotate_secret")])
            #expect(forged.status == 403)
            #expect(try provider.store.client(id: id)?.secretHash == SecretHash.digest(secret))

            let rotated = try await browser.post(
                "/developer/apps/\(id)", [("csrf_token", csrf), ("action", "rotate_secret")])
            #expect(rotated.status == 303)
            let shown = try await browser.get(try #require(rotated.location))
            let newSecret = try #require(Self.secret(on: shown))
            #expect(newSecret != secret)
            #expect(Self.secret(on: try await browser.get("/developer/apps/\(id)")) == nil)

            let client = try #require(try provider.store.client(id: id))
            let old = ClientCredentials.basic(id: id, secret: secret)
            let new = ClientCredentials.basic(id: id, secret: newSecret)
            _ = try await provider.signIn(user, to: client, scopes: ["openid"], credentials: old)
            _ = try await provider.signIn(user, to: client, scopes: ["openid"], credentials: new)
            provider.clock.advance(by: 24 * 60 * 60 - 60)
            _ = try await provider.signIn(user, to: client, scopes: ["openid"], credentials: old)
            provider.clock.advance(by: 120)
            let late = try await provider.redeem(
                try provider.issueCode(for: client, user: user, scopes: ["openid"]), client: old)
            #expect(late.status == 401)
            #expect(late.string("error") == "invalid_client")
            _ = try await provider.signIn(user, to: client, scopes: ["openid"], credentials: new)
            let wrong = try await provider.redeem(
                try provider.issueCode(for: client, user: user, scopes: ["openid"]),
                client: .basic(id: id, secret: "not-the-secret"))
            #expect(wrong.status == 401)
        }
    }

    @Test func deletingAnAppRevokesItsTokensAndOnlyItsOwnersSeeIt() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            try provider.addUser(email: "bob@example.com", name: "Bob Example")
            let browser = try await Self.developer(provider)
            let (id, secret) = try await Self.createWebApp(browser)
            let client = try #require(try provider.store.client(id: id))
            let credentials = ClientCredentials.basic(id: id, secret: secret)
            let tokens = try await provider.signIn(
                user, to: client, scopes: ["openid", "profile"], credentials: credentials)
            let refreshToken = try #require(tokens.string("refresh_token"))
            let accessToken = try #require(tokens.string("access_token"))
            #expect(try await provider.resource("/oauth/userinfo", token: accessToken).status == 200)
            #expect(try await provider.refresh(refreshToken, client: credentials).status == 200)

            // Someone else: no such app, for reading and for every action.
            let bob = try await Self.developer(provider, email: "bob@example.com")
            let elsewhere = try await bob.get("/developer/apps/\(id)")
            #expect(elsewhere.status == 404)
            #expect(!elsewhere.text.contains(id))
            let bobList = try await bob.get("/developer")
            #expect(!bobList.text.contains("Console App"))
            let bobForm = try await bob.get("/developer/apps/new")
            let bobCSRF = try #require(bobForm.hiddenField("csrf_token"))
            for action in ["delete", "rotate_secret", "save"] {
                let reply = try await bob.post(
                    "/developer/apps/\(id)",
                    [("csrf_token", bobCSRF), ("action", action), ("confirm", "yes"), ("name", "Taken")])
                #expect(reply.status == 404, "\(action)")
            }
            #expect(try await bob.get("/developer/apps/\(id)/preview?lang=en").status == 404)
            #expect(try provider.store.client(id: id)?.name == "Console App")
            #expect(try provider.store.client(id: id)?.secretHash == SecretHash.digest(secret))

            let page = try await browser.get("/developer/apps/\(id)")
            let csrf = try #require(page.hiddenField("csrf_token"))
            let confirm = try await browser.post("/developer/apps/\(id)", [("csrf_token", csrf), ("action", "delete")])
            #expect(confirm.status == 200)
            #expect(confirm.text.contains(#"id="confirm-delete""#))
            #expect(try provider.store.client(id: id) != nil)
            let forged = try await browser.post(
                "/developer/apps/\(id)", [("action", "delete"), ("confirm", "yes")])
            #expect(forged.status == 403)
            #expect(try provider.store.client(id: id) != nil)

            let deleted = try await browser.post(
                "/developer/apps/\(id)", [("csrf_token", csrf), ("action", "delete"), ("confirm", "yes")])
            #expect(deleted.status == 303)
            #expect(deleted.location == "/developer?done=deleted")
            #expect(try provider.store.client(id: id) == nil)
            #expect(try await provider.refresh(refreshToken, client: credentials).status != 200)
            #expect(try await provider.resource("/oauth/userinfo", token: accessToken).status == 401)
            #expect(try await browser.get("/developer/apps/\(id)").status == 404)
        }
    }

    @Test func savingKeepsTheSecretAndThePreviewShowsTheRealConsentPage() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let browser = try await Self.developer(provider)
            let (id, secret) = try await Self.createWebApp(browser)
            let page = try await browser.get("/developer/apps/\(id)")
            let csrf = try #require(page.hiddenField("csrf_token"))
            let bad = try await browser.post(
                "/developer/apps/\(id)",
                [("csrf_token", csrf), ("action", "save"), ("name", "Renamed"), ("redirect_uri", "ftp://x")])
            #expect(bad.status == 400)
            #expect(bad.text.contains(">ftp://x</textarea>"))
            #expect(try provider.store.client(id: id)?.name == "Console App")
            let saved = try await browser.post(
                "/developer/apps/\(id)",
                [
                    ("csrf_token", csrf), ("action", "save"), ("name", "Renamed App"),
                    ("redirect_uri", "https://app.example/callback"), ("web_origin", "https://app.example"),
                    ("logo_url", "https://app.example/logo.png"),
                ])
            #expect(saved.status == 303)
            let client = try #require(try provider.store.client(id: id))
            #expect(client.name == "Renamed App")
            #expect(client.redirectURIs == ["https://app.example/callback"])
            #expect(client.verifiesSecret(secret))
            #expect(!client.isVerified)

            let english = try await browser.get("/developer/apps/\(id)/preview?lang=en")
            #expect(english.status == 200)
            #expect(english.text.contains("Renamed App"))
            #expect(english.text.contains(#"id="unverified-app""#))
            #expect(english.text.contains(#"value="allow""#))
            let chinese = try await browser.get("/developer/apps/\(id)/preview?lang=zh-CN")
            #expect(chinese.text.contains(#"lang="zh"#))
            #expect(chinese.text.contains("Renamed App"))
        }
    }

    @Test func coDevelopersMayEditButNotRotateOrDelete() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let bobRecord = try provider.addUser(email: "bob@example.com", name: "Bob Example")
            let owner = try await Self.developer(provider)
            let (id, secret) = try await Self.createWebApp(owner)
            let page = try await owner.get("/developer/apps/\(id)")
            let csrf = try #require(page.hiddenField("csrf_token"))
            let unknown = try await owner.post(
                "/developer/apps/\(id)",
                [("csrf_token", csrf), ("action", "add_developer"), ("email", "nobody@example.com")])
            #expect(unknown.text.contains("There is no other account with that e-mail address."))
            let added = try await owner.post(
                "/developer/apps/\(id)",
                [("csrf_token", csrf), ("action", "add_developer"), ("email", "bob@example.com")])
            #expect(added.status == 303)
            #expect(try await owner.get("/developer/apps/\(id)").text.contains("bob@example.com"))

            let bob = try await Self.developer(provider, email: "bob@example.com")
            #expect(try await bob.get("/developer").text.contains("Console App"))
            let bobPage = try await bob.get("/developer/apps/\(id)")
            #expect(bobPage.status == 200)
            #expect(!bobPage.text.contains(#"value="rotate_secret""#))
            #expect(!bobPage.text.contains(#"value="delete""#))
            let bobCSRF = try #require(bobPage.hiddenField("csrf_token"))
            let saved = try await bob.post(
                "/developer/apps/\(id)",
                [
                    ("csrf_token", bobCSRF), ("action", "save"), ("name", "Bob's Edit"),
                    ("redirect_uri", "https://app.example/callback"),
                ])
            #expect(saved.status == 303)
            #expect(try provider.store.client(id: id)?.name == "Bob's Edit")
            for action in ["rotate_secret", "delete", "add_developer"] {
                let refused = try await bob.post(
                    "/developer/apps/\(id)",
                    [("csrf_token", bobCSRF), ("action", action), ("confirm", "yes"), ("email", "ann@example.com")])
                #expect(refused.status == 404, "\(action)")
            }
            #expect(try provider.store.client(id: id)?.secretHash == SecretHash.digest(secret))

            let removed = try await owner.post(
                "/developer/apps/\(id)",
                [("csrf_token", csrf), ("action", "remove_developer"), ("user_id", bobRecord.id)])
            #expect(removed.status == 303)
            #expect(try await bob.get("/developer/apps/\(id)").status == 404)
        }
    }

    @Test func onlyOperatorsSeeEveryApp() async throws {
        try await ProviderHarness.with { provider in
            let ann = try provider.addUser()
            let operatorAdded = Client(
                name: "Operator's App", type: .public, redirectURIs: ["https://op.example/cb"],
                createdAt: Date().addingTimeInterval(-60))
            try provider.store.insert(operatorAdded)
            let browser = try await Self.developer(provider)
            let (id, _) = try await Self.createWebApp(browser)
            #expect(try await browser.get("/developer/operator").status == 404)

            #expect(try OperatorGrant.set(true, reference: "ann@example.com", in: provider.store).changed)
            #expect(try !OperatorGrant.set(true, reference: ann.id, in: provider.store).changed)
            let list = try await browser.get("/developer/operator")
            #expect(list.status == 200)
            let console = try #require(list.text.range(of: #"data-client-id="\#(id)""#))
            let added = try #require(list.text.range(of: #"data-client-id="\#(operatorAdded.id)""#))
            #expect(console.lowerBound < added.lowerBound)
            #expect(list.text.contains("ann@example.com"))
            #expect(list.text.contains("added by the operator"))

            #expect(try OperatorGrant.set(false, reference: ann.id, in: provider.store).changed)
            #expect(try await browser.get("/developer/operator").status == 404)
        }
    }
}
