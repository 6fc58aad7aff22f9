import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// Creating an account at `/signup`, alone and in the middle of an authorization.
@Suite struct SignupTests {
    @Test func theFormHasLabelledFieldsWithAutocompleteAndACSRFToken() async throws {
        try await ProviderHarness.with { provider in
            let page = try await TestBrowser(base: provider.base).get("/signup")
            #expect(page.status == 200)
            #expect(page.hiddenField("csrf_token") != nil)
            for (name, autocomplete) in [
                ("name", "name"), ("email", "email"), ("password", "new-password"), ("postal_code", "postal-code"),
            ] {
                #expect(page.text.contains(#"<label for="\#(name)">"#))
                #expect(page.text.contains(#"name="\#(name)""#))
                #expect(page.text.contains(#"autocomplete="\#(autocomplete)""#))
            }
            #expect(page.text.contains(#"aria-describedby="password-hint""#))
            #expect(page.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
        }
    }

    @Test func aValidSignUpMailsALinkThatCreatesTheAccountAndSignsIn() async throws {
        try await ProviderHarness.with { provider in
            let browser = TestBrowser(base: provider.base)
            let reply = try await accountSignUp(
                browser,
                [
                    ("name", "Bea Example"), ("email", "  Bea@Example.com "), ("password", strongPassword),
                    ("postal_code", "75001"),
                ])
            #expect(reply.status == 200)
            #expect(reply.text.contains("Check your email"))
            #expect(reply.text.contains(#"id="signup-sent""#))
            #expect(reply.text.contains("Bea@Example.com"))
            #expect(browser.cookie("portico_session") == nil)
            #expect(try provider.store.user(email: "bea@example.com") == nil)

            let message = try await mail(to: "Bea@Example.com", in: provider)
            #expect(message.contains("Subject: Finish creating your Portico account"))
            #expect(message.contains("Hello Bea Example,"))
            #expect(!message.contains(strongPassword))
            let link = try signupLink(in: message)
            let created = try await accountConfirm(browser, link: link)
            #expect(created.status == 200)
            #expect(created.text.contains("Your account is ready"))
            #expect(created.text.contains("Bea Example"))
            #expect(browser.cookie("portico_session") != nil)

            let user = try #require(try provider.store.user(email: "bea@example.com"))
            #expect(user.email == "Bea@Example.com")
            #expect(user.name == "Bea Example")
            #expect(user.postalCode == "75001")
            #expect(user.isEmailVerified)
            #expect(user.passwordHash.hasPrefix("$argon2id$"))
            #expect(
                PasswordHasher(settings: ProviderHarness.passwordHashing).verify(
                    strongPassword, against: user.passwordHash))
            let sessions = try provider.store.read { try $0.sessions(userID: user.id) }
            #expect(sessions.count == 1)
            let events = try provider.store.read { try $0.recentAuditEvents(limit: 10) }
            #expect(events.contains { $0.action == "user.signup" && $0.subject == user.id && $0.actor == user.id })
            // The new account signs in with the password chosen at sign-up.
            #expect(
                try await TestBrowser(base: provider.base).signIn(
                    at: "/login", email: "bea@example.com", password: strongPassword
                ).status == 303)
        }
    }

    @Test func weakPasswordsAreRefusedNextToTheFieldAndTheFormKeepsTheRest() async throws {
        try await ProviderHarness.with { provider in
            let browser = TestBrowser(base: provider.base)
            let cases: [(String, String)] = [
                ("short pass", "at least 15 characters"),
                ("qazwsxedcrfvtgb", "too common"),  // on the list of the 10,000 most common
                ("QAZWSXEDCRFVTGB", "too common"),  // compared without regard to case
                ("1qaz2wsx3edc4rfv", "too common"),
                ("blueblueblueblue", "too common"),  // one piece repeated
                ("cara.example@example.org", "email address or name"),
                (String(repeating: "x7", count: 65), "at most 128 characters"),
            ]
            for (password, message) in cases {
                let reply = try await accountSignUp(
                    browser,
                    [
                        ("name", "Cara Example"), ("email", "cara.example@example.org"), ("password", password),
                        ("postal_code", "SW1A 1AA"),
                    ])
                #expect(reply.status == 200)
                #expect(reply.text.contains(message), "\(password)")
                #expect(reply.text.contains(#"id="password-error""#))
                #expect(reply.text.contains(#"aria-describedby="password-error password-hint""#))
                #expect(reply.text.contains(#"aria-invalid="true""#))
                #expect(reply.text.contains(#"value="Cara Example""#))
                #expect(reply.text.contains(#"value="cara.example@example.org""#))
                #expect(reply.text.contains(#"value="SW1A 1AA""#))
                if password != "cara.example@example.org" { #expect(!reply.text.contains(password)) }
            }
            #expect(try provider.store.user(email: "cara.example@example.org") == nil)
            #expect(browser.cookie("portico_session") == nil)
        }
    }

    @Test func otherFieldsAreCheckedToo() async throws {
        try await ProviderHarness.with { provider in
            let reply = try await accountSignUp(
                TestBrowser(base: provider.base),
                [("name", "  "), ("email", "not-an-address"), ("password", strongPassword), ("postal_code", "75<01")])
            #expect(reply.status == 200)
            #expect(reply.text.contains("Enter your name."))
            #expect(reply.text.contains("Enter an email address like name@example.com."))
            #expect(reply.text.contains("Use only letters, digits, spaces and hyphens."))
            #expect(reply.text.contains(#"value="75&lt;01""#))
            #expect(try provider.store.users().isEmpty)
        }
    }

    @Test func anAddressThatHasAnAccountGetsTheSameAnswerAndItsOwnerANotice() async throws {
        try await ProviderHarness.with { provider in
            let ann = try provider.addUser()
            let taken = try await accountSignUp(
                TestBrowser(base: provider.base),
                [("name", "Someone Else"), ("email", "ANN@example.com"), ("password", strongPassword)])
            let free = try await accountSignUp(
                TestBrowser(base: provider.base),
                [("name", "Someone Else"), ("email", "ANO@example.com"), ("password", strongPassword)])
            // The same status, headers and page, but for the address typed.
            #expect(taken.status == 200)
            #expect(free.status == taken.status)
            #expect(free.text.replacingOccurrences(of: "ANO@", with: "ANN@") == taken.text)
            #expect(!taken.text.contains("already exists"))
            #expect(taken.header("Set-Cookie") == free.header("Set-Cookie"))
            #expect(taken.header("Content-Length") == free.header("Content-Length"))

            // Nothing changed about Ann's account; she is told someone tried.
            #expect(try provider.store.users().count == 1)
            let stored = try #require(try provider.store.user(email: "ann@example.com"))
            #expect(stored.id == ann.id && stored.name == ann.name && stored.passwordHash == ann.passwordHash)
            #expect(!stored.isEmailVerified)
            #expect(stored.updatedAt.timeIntervalSince1970 == ann.updatedAt.timeIntervalSince1970.rounded(.down))
            let notice = try await mail(to: "ann@example.com", in: provider, atLeast: 2)
            #expect(notice.contains("Subject: Someone tried to create a Portico account with your address"))
            #expect(notice.contains("Hello Ann Example,"))
            #expect(notice.contains(provider.issuer + "/login"))
            #expect(notice.contains(provider.issuer + "/password/forgot"))
            #expect(!notice.contains("/signup/verify"))
            #expect(!notice.contains("Someone Else"))
            let link = try await mail(to: "ANO@example.com", in: provider, atLeast: 2)
            #expect(link.contains("/signup/verify?token="))
        }
    }

    @Test func aFormWithoutItsCSRFTokenIsRefused() async throws {
        try await ProviderHarness.with { provider in
            let browser = TestBrowser(base: provider.base)
            _ = try await browser.get("/signup")
            let reply = try await browser.post(
                "/signup", [("name", "Dan"), ("email", "dan@example.com"), ("password", strongPassword)])
            #expect(reply.status == 403)
            #expect(try provider.store.users().isEmpty)
        }
    }

    @Test func signingUpFromAnAuthorizationGoesOnToConsentAndBackToTheApp() async throws {
        try await ProviderHarness.with { provider in
            let client = try provider.addClient(name: "Photo Printer")
            let browser = TestBrowser(base: provider.base)
            let pkce = PKCEPair()
            let start = try await browser.get(
                TestBrowser.authorizePath(client: client, pkce: pkce, scope: "openid profile email"))
            let login = try await browser.get(try #require(start.location))
            // The sign-in page's "Create a new account" link carries the pending request.
            let range = try #require(
                login.text.range(of: #"href="/signup\?request=[^"]+""#, options: .regularExpression))
            let signupPath = String(login.text[range].dropFirst(6).dropLast())
            let signup = try await browser.get(signupPath)
            #expect(signup.text.contains(#"to continue to <span class="app-name">Photo Printer</span>"#))

            let sent = try await accountSignUp(
                browser, at: signupPath,
                [("name", "Eve Example"), ("email", "eve@example.com"), ("password", strongPassword)])
            #expect(sent.status == 200)
            #expect(sent.text.contains(#"href="/signup?request="#))
            let link = try signupLink(in: try await mail(to: "eve@example.com", in: provider))
            #expect(link.contains("&request="))
            let created = try await accountConfirm(browser, link: link)
            #expect(created.status == 303)
            let consent = try #require(created.location)
            #expect(consent.hasPrefix("/consent?request="))
            let allowed = try await browser.decide(at: consent, "allow")
            #expect(allowed.status == 303)
            let redirect = try #require(allowed.location)
            #expect(redirect.hasPrefix("https://app.example/callback?"))
            #expect(allowed.redirectParameters["state"] == "state-123")
            let code = try #require(allowed.redirectParameters["code"])

            let (status, tokens) = try await accountRedeem(browser, code: code, client: client, verifier: pkce.verifier)
            #expect(status == 200)
            let idToken = try #require(tokens["id_token"]?.stringValue)
            let claims = try (try await provider.jwksVerifier()).verify(idToken, algorithms: [.rs256]).claims()
            #expect(claims["email"] == .string("eve@example.com"))
            #expect(claims["email_verified"] == true)
            let userinfo = try await provider.resource(
                "/oauth/userinfo", token: try #require(tokens["access_token"]?.stringValue))
            #expect(userinfo.json["email_verified"] == true)
            let user = try #require(try provider.store.user(email: "eve@example.com"))
            #expect(try provider.store.read { try $0.consent(userID: user.id, clientID: client.id) } != nil)
        }
    }

    @Test func thePagesSpeakTheLanguageTheAppAskedFor() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addClient(name: "Photo Printer")
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(
                TestBrowser.authorizePath(client: client, extra: [("ui_locales", "zh-Hans")]))
            let login = try await browser.get(try #require(start.location))
            let signupRange = try #require(
                login.text.range(of: #"href="/signup\?request=[^"]+""#, options: .regularExpression))
            let signup = try await browser.get(String(login.text[signupRange].dropFirst(6).dropLast()))
            #expect(signup.text.contains(#"<html lang="zh-Hans""#))
            #expect(signup.text.contains("创建账户"))
            let weak = try await accountSignUp(
                browser, at: String(login.text[signupRange].dropFirst(6).dropLast()),
                [("name", "Fay"), ("email", "fay@example.com"), ("password", "short")])
            #expect(weak.text.contains("至少 15 个字符"))

            let forgotRange = try #require(
                login.text.range(of: #"href="/password/forgot\?request=[^"]+""#, options: .regularExpression))
            let sent = try await accountForgot(
                browser, at: String(login.text[forgotRange].dropFirst(6).dropLast()), email: "ann@example.com")
            #expect(sent.text.contains("请查收电子邮件"))
            let mail = try #require(try await provider.outboxMessages(atLeast: 1).first)
            #expect(mail.contains("Subject: 重置您的 Portico 密码"))
            let link = try resetLink(in: mail)
            #expect(link.contains("ui_locales=zh-Hans"))
            let form = try await browser.get(link)
            #expect(form.text.contains("设置新密码"))
            let done = try await accountReset(browser, link: link)
            #expect(done.status == 200)
            #expect(done.text.contains("您的密码已更改"))
        }
    }
}
