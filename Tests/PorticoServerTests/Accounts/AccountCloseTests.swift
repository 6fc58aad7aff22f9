import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Your Account's "Download your data" and "Close your account" over real HTTP.
@Suite struct AccountCloseTests {
    /// The confirmation form's fields on `page`.
    private func confirmation(_ page: TestReply) throws -> [(String, String)] {
        [
            ("csrf_token", try #require(page.hiddenField("csrf_token"))),
            (AccountCloseEndpoint.untilField, try #require(page.hiddenField(AccountCloseEndpoint.untilField))),
            ("confirm_close", "1"),
        ]
    }

    /// The first step's page and its CSRF token.
    private func closePage(_ browser: TestBrowser) async throws -> (TestReply, String) {
        let page = try await browser.get(AccountCloseEndpoint.path)
        #expect(page.status == 200, "\(page.text)")
        return (page, try #require(page.hiddenField("csrf_token")))
    }

    @Test func downloadHoldsThePersonsDataAndNoSecrets() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { harness in
            let user = try harness.addUser()
            let receiver = try LogoutReceiver()
            let shop = try harness.addBackChannelClient(name: "Shop", receiver: receiver)
            let rp = try #require(PasskeyRelyingParty(issuer: harness.issuer))
            var phone = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin, synced: true)
            let flows = PasskeyFlowTests()
            let (browser, csrf) = try await flows.signedIn(harness)
            try await flows.add(&phone, browser: browser, csrf: csrf)
            let tokens = try await harness.authorizeAndRedeem(browser, client: shop, scope: "openid profile email")
            let account = try await browser.get(AccountEndpoint.path)
            #expect(account.text.contains(#"id="data-download""#))
            #expect(account.text.contains(#"id="account-close""#))

            let reply = try await browser.post(DataDownloadEndpoint.path, [("csrf_token", csrf)])
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.header("Cache-Control") == "no-store")
            let disposition = try #require(reply.header("Content-Disposition"))
            #expect(
                disposition.range(
                    of: #"^attachment; filename="portico-data-\d{4}-\d{2}-\d{2}\.json"$"#, options: .regularExpression)
                    != nil, "\(disposition)")
            let data = reply.json
            let profile = try #require(data["profile"]?.objectValue)
            #expect(profile["email"]?.stringValue == user.email)
            #expect(profile["name"]?.stringValue == user.name)
            #expect(profile["has_password"] == .bool(true))
            #expect(data["two_step_verification"]?.objectValue?["enabled"] == .bool(false))
            let apps = try #require(data["apps_allowed"]?.arrayValue)
            #expect(apps.count == 1)
            #expect(apps.first?.objectValue?["client_id"]?.stringValue == shop.id)
            #expect(apps.first?.objectValue?["scopes"] == ["email", "openid", "profile"])
            #expect(apps.first?.objectValue?["first_allowed"]?.stringValue != nil)
            #expect(data["linked_accounts"]?.arrayValue == [])
            let sessions = try #require(data["sessions"]?.arrayValue)
            #expect(sessions.count == 1)
            #expect(sessions.first?.objectValue?["this_browser"] == .bool(true))
            let passkeys = try #require(data["passkeys"]?.arrayValue)
            #expect(passkeys.count == 1)
            #expect(passkeys.first?.objectValue?["synced"] == .bool(true))
            #expect(passkeys.first?.objectValue?["last_used"] == .null)
            let history = try #require(data["history"]?.arrayValue).compactMap {
                $0.objectValue?["action"]?.stringValue
            }
            #expect(history.contains("user.passkey_added"))
            // The password sign-in is in the history, with its method and nothing personal.
            let signIns = try #require(data["history"]?.arrayValue).filter {
                $0.objectValue?["action"]?.stringValue == "session.start"
            }
            #expect(signIns.count == 1)
            #expect(signIns.first?.objectValue?["details"] == ["methods": ["pwd"]])

            // Nothing that opens the account or a grant: no password hash, session token or its
            // hash, refresh or access token, user handle or public key.
            let stored = try #require(try harness.store.read { try $0.user(id: user.id) })
            let session = try #require(try harness.store.read { try $0.sessions(userID: user.id) }.first)
            let credential = try #require(try harness.store.read { try $0.passkeyCredential(id: phone.credentialID) })
            let secrets = [
                stored.passwordHash, "argon2", try #require(browser.cookie(SignInSession.cookieName)),
                session.hashedID, try #require(tokens["refresh_token"]?.stringValue),
                try #require(tokens["access_token"]?.stringValue), Base64URL.encode(phone.userHandle),
                Base64URL.encode(credential.publicKey), Base64URL.encode(phone.credentialID),
            ]
            for secret in secrets { #expect(!reply.text.contains(secret), "the file holds \(secret.prefix(12))…") }

            // A forged form gets nothing; a GET goes back to Your Account; signed out, to sign in.
            let forged = try await browser.post(DataDownloadEndpoint.path, [("csrf_token", "forged")])
            #expect(forged.status == 403 && !forged.text.contains(user.email))
            #expect(try await browser.get(DataDownloadEndpoint.path).location == AccountEndpoint.path)
            let stranger = try await harness.browser().post(DataDownloadEndpoint.path, [("csrf_token", csrf)])
            #expect(stranger.status != 200 && !stranger.text.contains(user.email))
        }
    }

    @Test func refusedClosuresChangeNothing() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let (browser, _) = try await PasskeyFlowTests().signedIn(harness)
            let (page, csrf) = try await closePage(browser)
            #expect(page.text.contains(#"name="current_password""#))
            #expect(page.text.contains(#"<label for="current_password">"#))

            // A wrong or missing password: the form again with an alert, nothing closed.
            let wrong = try await browser.post(
                AccountCloseEndpoint.path, [("csrf_token", csrf), ("current_password", "not the password")])
            #expect(wrong.status == 400)
            #expect(
                wrong.text.contains(#"role="alert""#) && wrong.text.contains(AccountCloseText.passwordWrong[.english]))
            #expect(wrong.hiddenField(AccountCloseEndpoint.untilField) == nil)
            let missing = try await browser.post(AccountCloseEndpoint.path, [("csrf_token", csrf)])
            #expect(missing.status == 400 && missing.text.contains(AccountCloseText.passwordMissing[.english]))
            // The right password without the page's token: forged.
            let forged = try await browser.post(
                AccountCloseEndpoint.path, [("csrf_token", "x"), ("current_password", ProviderHarness.defaultPassword)])
            #expect(forged.status == 403)
            // A confirmation nobody was shown (a token for another time), or shown too long ago.
            let right = try await browser.post(
                AccountCloseEndpoint.path,
                [("csrf_token", csrf), ("current_password", ProviderHarness.defaultPassword)])
            #expect(right.status == 200 && right.text.contains(#"id="account-close-confirm""#))
            var fields = try confirmation(right)
            let until = try #require(Int64(fields[1].1))
            fields[1].1 = String(until + 3600)
            #expect(try await browser.post(AccountCloseEndpoint.path, fields).status == 403)
            #expect(
                try await browser.post(AccountCloseEndpoint.path, [("csrf_token", csrf)] + fields.suffix(2)).status
                    == 403)
            harness.clock.advance(by: AccountCloseEndpoint.confirmationLifetime + 1)
            let late = try await browser.post(AccountCloseEndpoint.path, try confirmation(right))
            #expect(late.status == 400 && late.text.contains(AccountCloseText.expired[.english]))

            #expect(try harness.store.read { try $0.user(id: user.id) } != nil)
            #expect(try harness.store.read { try $0.sessions(userID: user.id) }.count == 1)
            #expect(try await browser.get(AccountEndpoint.path).status == 200)
            #expect(
                !(try harness.store.read { try $0.auditEvents(involving: user.id, limit: 50) }).contains {
                    $0.action == "user.close"
                })
        }
    }

    /// Wrong passwords on the close page count like sign-in's: past the account's limit even
    /// the right one waits (429 with `Retry-After`), so a stolen session cannot guess its way
    /// to closing the account.
    @Test func guessingThePasswordIsThrottled() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let (browser, _) = try await PasskeyFlowTests().signedIn(harness)
            let (_, csrf) = try await closePage(browser)
            for _ in 0..<AttemptThrottle.accountLimit {
                let wrong = try await browser.post(
                    AccountCloseEndpoint.path, [("csrf_token", csrf), ("current_password", "not the password")])
                #expect(wrong.status == 400)
            }
            let held = try await browser.post(
                AccountCloseEndpoint.path,
                [("csrf_token", csrf), ("current_password", ProviderHarness.defaultPassword)])
            #expect(held.status == 429 && held.header("Retry-After") != nil)
            #expect(held.text.contains(#"role="alert""#) && !held.text.contains(#"id="account-close-confirm""#))
            #expect(try harness.store.read { try $0.user(id: user.id) } != nil)
        }
    }

    @Test func closingTellsTheAppsAndRemovesEverything() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { harness in
            let user = try harness.addUser()
            let receiver = try LogoutReceiver()
            let shop = try harness.addBackChannelClient(name: "Shop", receiver: receiver)
            let news = try harness.addSignalReceiver(name: "News")
            let streamToken = try await harness.streamToken(for: news)
            _ = try await harness.createStream(
                token: streamToken, delivery: ["method": .string(SharedSignals.pollMethod)])
            let rp = try #require(PasskeyRelyingParty(issuer: harness.issuer))
            var phone = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
            let flows = PasskeyFlowTests()
            let (browser, csrf) = try await flows.signedIn(harness)
            try await flows.add(&phone, browser: browser, csrf: csrf)
            let tokens = try await harness.authorizeAndRedeem(browser, client: shop)
            let refreshToken = try #require(tokens["refresh_token"]?.stringValue)
            let now = harness.clock.now
            try harness.store.transaction {
                try $0.saveConsent(userID: user.id, clientID: news.id, scopes: ["openid", "email"], now: now)
            }
            // A second browser, signed in too.
            let other = harness.browser()
            _ = try await other.signIn(at: try #require(try await other.get(AccountEndpoint.path).location))
            #expect(try harness.store.read { try $0.sessions(userID: user.id) }.count == 2)

            let (_, closeCSRF) = try await closePage(browser)
            let confirm = try await browser.post(
                AccountCloseEndpoint.path,
                [("csrf_token", closeCSRF), ("current_password", ProviderHarness.defaultPassword)])
            #expect(confirm.status == 200 && confirm.text.contains(#"id="account-close-confirm""#))
            let closed = try await browser.post(AccountCloseEndpoint.path, try confirmation(confirm))
            #expect(closed.status == 303)
            #expect(closed.location == AccountCloseEndpoint.closedPath)
            let goodbye = try await browser.get(try #require(closed.location))
            #expect(goodbye.status == 200 && goodbye.text.contains(#"id="account-closed""#))
            #expect(!goodbye.text.contains(user.email))

            // Gone: the account and everything hanging from it; both browsers signed out.
            #expect(try harness.store.read { try $0.user(id: user.id) } == nil)
            #expect(try harness.store.read { try $0.user(email: user.email) } == nil)
            #expect(try harness.store.read { try $0.sessions(userID: user.id) }.isEmpty)
            #expect(try harness.store.read { try $0.consents(userID: user.id) }.isEmpty)
            #expect(try harness.store.read { try $0.passkeyCredentials(userID: user.id) }.isEmpty)
            #expect(try harness.store.read { try $0.passkeyCredential(id: phone.credentialID) } == nil)
            #expect(try await browser.get(AccountEndpoint.path).location?.hasPrefix("/login") == true)
            #expect(try await other.get(AccountEndpoint.path).location?.hasPrefix("/login") == true)
            // The app's refresh token mints nothing more.
            let refreshed = try await harness.refresh(refreshToken, client: .basic(id: shop.id, secret: "secret"))
            #expect(refreshed.status == 400 && refreshed.string("error") == "invalid_grant")

            // The app with a back-channel logout URI was told.
            let logouts = try await receiver.tokens(atLeast: 1)
            let claims = try await harness.verifiedLogoutToken(try #require(logouts.first), for: shop)
            #expect(claims.subject == user.id)

            // The app with a Shared Signals stream hears RISC account-purged.
            let reply = try await harness.json(
                "POST", SharedSignals.pollPath, token: streamToken, body: ["returnImmediately": true])
            var events: [String] = []
            for (_, set) in try #require(reply.json["sets"]?.objectValue) {
                let claims = try await harness.verifiedSET(try #require(set.stringValue), for: news)
                events.append(claims.event?.type ?? "?")
            }
            #expect(events == [SharedSignals.Event.accountPurged.rawValue])

            // A mail confirms it, to the address the account had.
            let mails = try await harness.outboxMessages(containing: AccountCloseText.mailSubject[.english])
            #expect(mails.contains { $0.contains(AccountCloseText.mailSubject[.english]) && $0.contains(user.email) })

            // The audit trail stays, naming the account by id only.
            let trail = try harness.store.read { try $0.auditEvents(involving: user.id, limit: 100) }
            #expect(trail.first?.action == "user.close")
            #expect(trail.contains { $0.action == "user.passkey_added" })
            for event in trail {
                #expect(!event.details.contains(user.email) && !event.details.contains(user.name))
            }
        }
    }

    /// Without a password, a passkey sign-in at most five minutes old stands in for it (as for
    /// adding a passkey); an older one, or a password session, gets no confirmation.
    @Test func aFreshPasskeySignInStandsInForThePassword() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let rp = try #require(PasskeyRelyingParty(issuer: harness.issuer))
            var phone = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
            let flows = PasskeyFlowTests()
            let (browser, csrf) = try await flows.signedIn(harness)
            try await flows.add(&phone, browser: browser, csrf: csrf)
            var passwordless = try #require(try harness.store.read { try $0.user(id: user.id) })
            passwordless.passwordHash = ""
            try harness.store.transaction { try $0.update(passwordless) }

            // Signed in with the password (even just now): no password to ask, no confirmation,
            // only the way to sign in again with the passkey.
            let first = try await browser.get(AccountCloseEndpoint.path)
            #expect(first.status == 200)
            #expect(first.text.contains(#"id="account-close-passkey""#))
            #expect(!first.text.contains(#"name="current_password""#))
            #expect(!first.text.contains(#"id="account-close-confirm""#))

            func passkeySignIn(_ other: TestBrowser) async throws {
                let login = try await other.get(ReturnPath.signInLocation(returningTo: AccountCloseEndpoint.path))
                let assertion = phone.assert(challenge: try await flows.challenge(other))
                var fields = try flows.signInFields(
                    login, assertion, credentialID: phone.credentialID, userHandle: phone.userHandle)
                fields.append((ReturnPath.field, try #require(login.hiddenField(ReturnPath.field))))
                let reply = try await other.post(PasskeyEndpoint.signInPath, fields)
                #expect(reply.location == AccountCloseEndpoint.path, "\(reply.status) \(reply.text)")
            }
            let other = harness.browser()
            try await passkeySignIn(other)
            let fresh = try await other.get(AccountCloseEndpoint.path)
            #expect(fresh.text.contains(#"id="account-close-confirm""#))

            // Six minutes on: that sign-in no longer counts, and its confirmation has run out.
            harness.clock.advance(by: PasskeyEndpoint.reauthenticationWindow + 60)
            let later = try await other.get(AccountCloseEndpoint.path)
            #expect(!later.text.contains(#"id="account-close-confirm""#))
            #expect(try await other.post(AccountCloseEndpoint.path, try confirmation(fresh)).status == 400)
            #expect(try harness.store.read { try $0.user(id: user.id) } != nil)

            // Signed in with the passkey again: closed.
            try await passkeySignIn(other)
            let again = try await other.get(AccountCloseEndpoint.path)
            let closed = try await other.post(AccountCloseEndpoint.path, try confirmation(again))
            #expect(closed.status == 303 && closed.location == AccountCloseEndpoint.closedPath)
            #expect(try harness.store.read { try $0.user(id: user.id) } == nil)
        }
    }

    @Test func closingPagesSpeakChinese() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let (browser, _) = try await PasskeyFlowTests().signedIn(harness)
            let page = try await browser.get(AccountCloseEndpoint.path + "?ui_locales=zh-CN")
            #expect(page.text.contains(AccountCloseText.title[.simplifiedChinese]))
            #expect(page.text.contains(#"action="/account/close?ui_locales=zh-Hans""#))
            let account = try await browser.get(AccountEndpoint.path + "?ui_locales=zh-CN")
            #expect(account.text.contains(AccountCloseText.download[.simplifiedChinese]))
            let goodbye = try await browser.get(AccountCloseEndpoint.closedPath + "?ui_locales=zh-CN")
            #expect(goodbye.text.contains(AccountCloseText.closedTitle[.simplifiedChinese]))
        }
    }
}
