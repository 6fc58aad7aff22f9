import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Two-step verification over real HTTP: enrollment in Your Account (QR code and text key, a
/// first code), the second sign-in step (codes refused when wrong or replayed, recovery codes
/// once each, throttled), `amr` in ID tokens both ways, removal with the password, and no
/// secret in plain text in the database file.
@Suite struct TwoStepVerificationTests {
    /// What enrollment handed out.
    struct Enrollment {
        var secret: [UInt8]
        var recoveryCodes: [String]
    }

    /// The code of the step `offset` steps from the provider's now.
    private func code(_ secret: [UInt8], _ harness: ProviderHarness, offset: Int64 = 0) -> String {
        let step = Int64(harness.clock.now.timeIntervalSince1970.rounded(.down)) / 30 + offset
        return OneTimePassword(secret: secret).code(step: step)
    }

    /// A browser signed in (password only) and on Your Account.
    private func signedInBrowser(
        _ harness: ProviderHarness, password: String = ProviderHarness.defaultPassword
    ) async throws -> TestBrowser {
        let browser = harness.browser()
        let first = try await browser.get(TwoStepEndpoint.path)
        let login = try #require(first.location)
        #expect(login.hasPrefix("/login?return_to="))
        let signedIn = try await browser.signIn(at: login, password: password)
        #expect(signedIn.status == 303)
        return browser
    }

    /// The text key shown on the enrollment page.
    static func shownSecret(_ page: TestReply) throws -> [UInt8] {
        let text = page.text
        let start = try #require(
            text.range(of: "<p class=\"secret\" id=\"secret\" aria-describedby=\"secret-caption\">"))
        let end = try #require(text.range(of: "</p>", range: start.upperBound..<text.endIndex))
        return try #require(Base32.decode(String(text[start.upperBound..<end.lowerBound])))
    }

    /// The recovery codes of the page that shows them.
    static func shownCodes(_ page: TestReply) -> [String] {
        page.text.components(separatedBy: "<li><code>").dropFirst().compactMap {
            $0.components(separatedBy: "</code>").first
        }
    }

    /// Enrolls the signed-in `browser`: reads the key, posts a first code.
    private func enroll(
        _ browser: TestBrowser, _ harness: ProviderHarness, password: String = ProviderHarness.defaultPassword
    ) async throws -> Enrollment {
        let page = try await browser.get(TwoStepEndpoint.path)
        #expect(page.status == 200)
        #expect(page.text.contains("<svg class=\"qr\""))
        #expect(page.text.contains("role=\"img\""))
        #expect(page.text.contains("autocomplete=\"one-time-code\""))
        #expect(page.text.contains("inputmode=\"numeric\""))
        let secret = try Self.shownSecret(page)
        #expect(secret.count == 20)
        // Reloading keeps the key the app may have scanned.
        #expect(try Self.shownSecret(try await browser.get(TwoStepEndpoint.path)) == secret)
        let csrf = try #require(page.hiddenField("csrf_token"))
        let wrong = try await browser.post(
            TwoStepEndpoint.path,
            [("csrf_token", csrf), ("action", "confirm"), ("otp", "000000"), ("confirm_password", password)])
        #expect(wrong.status == 400)
        #expect(wrong.text.contains("That code is not right"))
        #expect(page.text.contains("name=\"confirm_password\""))
        let done = try await browser.post(
            TwoStepEndpoint.path,
            [
                ("csrf_token", csrf), ("action", "confirm"), ("otp", code(secret, harness)),
                ("confirm_password", password),
            ])
        #expect(done.status == 200)
        let codes = Self.shownCodes(done)
        #expect(codes.count == 10)
        #expect(Set(codes).count == 10)
        #expect(codes.allSatisfy { $0.count == 11 && $0.contains("-") })
        return Enrollment(secret: secret, recoveryCodes: codes)
    }

    /// Posts the password on the sign-in page and returns the second-step page.
    private func secondStep(
        _ browser: TestBrowser, at login: String = "/login", remember: Bool = false
    ) async throws -> TestReply {
        let page = try await browser.signIn(at: login, remember: remember)
        #expect(page.status == 200)
        #expect(page.text.contains("name=\"otp\""))
        #expect(page.text.contains("name=\"recovery_code\""))
        #expect(page.hiddenField("pending") != nil)
        return page
    }

    private func submit(
        _ browser: TestBrowser, on page: TestReply, otp: String = "", recoveryCode: String = ""
    ) async throws -> TestReply {
        try await browser.post(
            TwoStepSignInEndpoint.path,
            [
                ("csrf_token", try #require(page.hiddenField("csrf_token"))),
                ("pending", try #require(page.hiddenField("pending"))), ("otp", otp), ("recovery_code", recoveryCode),
            ])
    }

    @Test func enrolledSignInNeedsAFreshCodeOrARecoveryCodeOnceAndRemovalNeedsThePassword() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let browser = try await signedInBrowser(harness)
            let account = try await browser.get("/account")
            #expect(account.text.contains("href=\"/account/two-step\""))
            #expect(account.text.contains("Turn on two-step verification"))
            let enrollment = try await enroll(browser, harness)
            #expect(try await browser.get("/account").text.contains("10 of 10 recovery codes left"))
            _ = try await harness.outboxMessages(containing: "Subject: Two-step verification was turned on\r\n")

            // The password alone makes no session.
            let other = harness.browser()
            let step = try await secondStep(other)
            #expect(other.cookie("portico_session") == nil)
            #expect(try await other.get("/account").status == 302)
            let wrong = try await submit(other, on: step, otp: "123456")
            #expect(wrong.status == 200)
            #expect(wrong.text.contains("role=\"alert\""))
            #expect(wrong.text.contains("That code is not right"))
            #expect(other.cookie("portico_session") == nil)
            // The code that confirmed enrollment was used: refused, as is anything older.
            let replayed = try await submit(other, on: step, otp: code(enrollment.secret, harness))
            #expect(replayed.text.contains("That code is not right"))
            #expect(other.cookie("portico_session") == nil)
            harness.clock.advance(by: 30)
            let fresh = code(enrollment.secret, harness)
            let accepted = try await submit(other, on: step, otp: fresh)
            #expect(accepted.status == 303)
            #expect(accepted.location == "/account")
            #expect(accepted.header("Set-Login") == "logged-in")
            #expect(step.header("Set-Login") == nil)
            #expect(wrong.header("Set-Login") == nil)
            #expect(other.cookie("portico_session") != nil)
            // The half-done sign-in was single use.
            #expect(try await submit(other, on: step, otp: fresh).text.contains("That took too long"))
            // The same code in another browser, in the same step: refused.
            let third = harness.browser()
            let thirdStep = try await secondStep(third)
            #expect(try await submit(third, on: thirdStep, otp: fresh).text.contains("That code is not right"))

            // A recovery code works once.
            let recovered = try await submit(
                third, on: thirdStep, recoveryCode: enrollment.recoveryCodes[0].uppercased())
            #expect(recovered.status == 303)
            let fourth = harness.browser()
            let fourthStep = try await secondStep(fourth)
            let reused = try await submit(fourth, on: fourthStep, recoveryCode: enrollment.recoveryCodes[0])
            #expect(reused.text.contains("That recovery code is not right"))
            #expect(fourth.cookie("portico_session") == nil)
            #expect(try await browser.get("/account").text.contains("9 of 10 recovery codes left"))

            // Removal: the password is required; other browsers are signed out.
            let manage = try await browser.get(TwoStepEndpoint.path)
            #expect(manage.text.contains("Turn off two-step verification"))
            let csrf = try #require(manage.hiddenField("csrf_token"))
            let refused = try await browser.post(
                TwoStepEndpoint.path, [("csrf_token", csrf), ("action", "remove"), ("remove_password", "guess")])
            #expect(refused.status == 400)
            #expect(try harness.store.read { try $0.twoStepEnrollment(userID: user.id) }?.isConfirmed == true)
            let forged = try await browser.post(
                TwoStepEndpoint.path,
                [("csrf_token", "forged"), ("action", "remove"), ("remove_password", ProviderHarness.defaultPassword)])
            #expect(forged.status == 403)
            let removed = try await browser.post(
                TwoStepEndpoint.path,
                [
                    ("csrf_token", csrf), ("action", "remove"), ("remove_password", ProviderHarness.defaultPassword),
                ])
            #expect(removed.status == 303)
            #expect(removed.location == "/account?done=two_step_off")
            #expect(try harness.store.read { try $0.twoStepEnrollment(userID: user.id) } == nil)
            #expect(try await other.get("/account").status == 302)
            #expect(try await browser.get("/account").status == 200)
            _ = try await harness.outboxMessages(containing: "Subject: Two-step verification was turned off\r\n")
            // And the password alone signs in again.
            #expect(try await harness.browser().signIn(at: "/login").status == 303)
        }
    }

    /// A stolen session cookie must not be enough to enrol the thief's authenticator and lock
    /// the owner out: the right code without the password (or with a wrong one) changes nothing.
    @Test func turningOnNeedsThePassword() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let browser = try await signedInBrowser(harness)
            let page = try await browser.get(TwoStepEndpoint.path)
            let secret = try Self.shownSecret(page)
            let csrf = try #require(page.hiddenField("csrf_token"))
            for password in ["", "guess"] {
                let refused = try await browser.post(
                    TwoStepEndpoint.path,
                    [
                        ("csrf_token", csrf), ("action", "confirm"), ("otp", code(secret, harness)),
                        ("confirm_password", password),
                    ])
                #expect(refused.status == 400)
                #expect(refused.text.contains("role=\"alert\""))
                #expect(Self.shownCodes(refused).isEmpty)
                #expect(try harness.store.read { try $0.twoStepEnrollment(userID: user.id) }?.isConfirmed == false)
            }
            // The refusals used nothing up: the same code with the password turns it on.
            let done = try await browser.post(
                TwoStepEndpoint.path,
                [
                    ("csrf_token", csrf), ("action", "confirm"), ("otp", code(secret, harness)),
                    ("confirm_password", ProviderHarness.defaultPassword),
                ])
            #expect(done.status == 200)
            #expect(Self.shownCodes(done).count == 10)
            #expect(try harness.store.read { try $0.twoStepEnrollment(userID: user.id) }?.isConfirmed == true)
        }
    }

    /// The link in the "turned on" mail: the owner's way back from someone else's enrollment
    /// after resetting the password, without signing in; once, for that enrollment only.
    @Test func theTurnedOnMailCarriesALinkThatTurnsItOffAgain() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            // Someone with the password and a session enrolls their own authenticator.
            let intruder = try await signedInBrowser(harness)
            _ = try await enroll(intruder, harness)
            let onMail = try await mail(containing: "/account/two-step/undo?token=", harness)
            #expect(onMail.contains("\r\nTo: \(user.email)\r\n"))
            #expect(onMail.contains("Subject: Two-step verification was turned on\r\n"))
            let range = try #require(
                onMail.range(of: #"http://[^\s]+/account/two-step/undo\?token=[^\s]+"#, options: .regularExpression))
            let url = try #require(URL(string: String(onMail[range])))
            let link = url.path + "?" + (url.query ?? "")

            // The owner resets the password: two-step stays on (a mailbox alone must not undo it).
            let owner = harness.browser()
            _ = try await accountForgot(owner, email: user.email)
            let resetMail = try await mail(containing: "/password/reset?token=", harness)
            #expect(try await accountReset(owner, link: try resetLink(in: resetMail)).status == 200)
            #expect(try harness.store.read { try $0.twoStepEnrollment(userID: user.id) }?.isConfirmed == true)

            // A forged or altered token is the dead page and changes nothing.
            let forged = try await owner.get(link.dropLast(2) + "AA")
            #expect(forged.status == 400)
            #expect(forged.text.contains("id=\"undo-link-dead\""))

            // Opening the link only asks; pressing the button turns it off (and would sign out every
            // browser; the reset did so already).
            let ask = try await owner.get(link)
            #expect(ask.status == 200)
            #expect(try harness.store.read { try $0.twoStepEnrollment(userID: user.id) }?.isConfirmed == true)
            let form = [
                ("csrf_token", try #require(ask.hiddenField("csrf_token"))),
                ("token", try #require(ask.hiddenField("token"))),
            ]
            let done = try await owner.post(TwoStepUndoLink.path, form)
            #expect(done.status == 200)
            #expect(done.text.contains("id=\"two-step-undone\""))
            #expect(try harness.store.read { try $0.twoStepEnrollment(userID: user.id) } == nil)
            #expect(try harness.store.sessions(userID: user.id).isEmpty)
            #expect(try await intruder.get("/account").status == 302)
            let events = try harness.store.recentAuditEvents()
            #expect(events.contains { $0.action == "user.two_step_off" && $0.details.contains("mailed_link") })
            _ = try await mail(containing: "Subject: Two-step verification was turned off\r\n", harness)
            // The new password alone signs in again.
            let signIn = try await harness.browser().signIn(at: "/login", password: strongPassword)
            #expect(signIn.status == 303)

            // Used: the link is dead, also for an enrollment made afterwards.
            let again = try await signedInBrowser(harness, password: strongPassword)
            _ = try await enroll(again, harness, password: strongPassword)
            #expect(try await owner.get(link).status == 400)
            #expect(try await owner.post(TwoStepUndoLink.path, form).status == 400)
            #expect(try harness.store.read { try $0.twoStepEnrollment(userID: user.id) }?.isConfirmed == true)
        }
    }

    /// ASVS 2.8.5: a code used once and presented again is refused, each replay is audited,
    /// and the owner is mailed once, however often it is replayed.
    @Test func aReplayedCodeIsRefusedAuditedAndMailedOnce() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let owner = try await signedInBrowser(harness)
            let enrollment = try await enroll(owner, harness)
            harness.clock.advance(by: 30)
            let used = code(enrollment.secret, harness)
            let first = harness.browser()
            #expect(try await submit(first, on: try await secondStep(first), otp: used).status == 303)
            // A wrong code is no replay.
            let guesser = harness.browser()
            _ = try await submit(guesser, on: try await secondStep(guesser), otp: "000000")
            let replayAction = "user.two_step_code_replayed"
            #expect(try harness.store.recentAuditEvents().contains { $0.action == replayAction } == false)

            for _ in 0..<2 {
                let replayer = harness.browser()
                let replayed = try await submit(replayer, on: try await secondStep(replayer), otp: used)
                #expect(replayed.status == 200)
                #expect(replayed.text.contains("That code is not right"))
                #expect(replayer.cookie("portico_session") == nil)
            }
            let events = try harness.store.recentAuditEvents().filter { $0.action == replayAction }
            #expect(events.count == 2)
            #expect(events.allSatisfy { $0.subject == user.id && $0.details.contains("\"step\"") })
            let subject = "Subject: A used sign-in code was tried on your account\r\n"
            let replayMail = try await mail(containing: subject, harness)
            #expect(replayMail.contains("\r\nTo: \(user.email)\r\n"))
            // Another mail after both replays, then count: the second replay sent none.
            let manage = try await owner.get(TwoStepEndpoint.path)
            _ = try await owner.post(
                TwoStepEndpoint.path,
                [
                    ("csrf_token", try #require(manage.hiddenField("csrf_token"))), ("action", "remove"),
                    ("remove_password", ProviderHarness.defaultPassword),
                ])
            _ = try await mail(containing: "Subject: Two-step verification was turned off\r\n", harness)
            #expect(try await harness.outboxMessages(atLeast: 1).filter { $0.contains(subject) }.count == 1)
        }
    }

    /// The newest mail that contains `text`, waiting for it (mail goes out after the page answers).
    private func mail(containing text: String, _ harness: ProviderHarness) async throws -> String {
        for count in 1...20 {
            let messages = try await harness.outboxMessages(atLeast: count)
            if let found = messages.last(where: { $0.contains(text) }) { return found }
        }
        throw HarnessFailure("no mail contains \(text)")
    }

    @Test func newRecoveryCodesNeedThePasswordAndRetireTheOldOnes() async throws {
        try await ProviderHarness.with { harness in
            _ = try harness.addUser()
            let browser = try await signedInBrowser(harness)
            let enrollment = try await enroll(browser, harness)
            let manage = try await browser.get(TwoStepEndpoint.path)
            let csrf = try #require(manage.hiddenField("csrf_token"))
            let refused = try await browser.post(
                TwoStepEndpoint.path,
                [("csrf_token", csrf), ("action", "regenerate"), ("regenerate_password", "guess")])
            #expect(refused.status == 400)
            #expect(Self.shownCodes(refused).isEmpty)
            let renewed = try await browser.post(
                TwoStepEndpoint.path,
                [
                    ("csrf_token", csrf), ("action", "regenerate"),
                    ("regenerate_password", ProviderHarness.defaultPassword),
                ])
            #expect(renewed.status == 200)
            let codes = Self.shownCodes(renewed)
            #expect(codes.count == 10)
            #expect(Set(codes).isDisjoint(with: enrollment.recoveryCodes))
            // The old codes no longer sign in; the new ones do.
            let old = harness.browser()
            let oldStep = try await secondStep(old)
            let stale = try await submit(old, on: oldStep, recoveryCode: enrollment.recoveryCodes[1])
            #expect(stale.text.contains("That recovery code is not right"))
            let fresh = harness.browser()
            let freshStep = try await secondStep(fresh)
            #expect(try await submit(fresh, on: freshStep, recoveryCode: codes[0]).status == 303)
        }
    }

    @Test func theIDTokenSaysHowThePersonSignedIn() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient()
            func authorize(_ browser: TestBrowser, secret: [UInt8]?, recoveryCode: String? = nil) async throws
                -> [String: JSONValue]
            {
                let pkce = PKCEPair()
                let start = try await browser.get(TestBrowser.authorizePath(client: client, pkce: pkce))
                let login = try #require(start.location)
                #expect(login.hasPrefix("/login"))
                var reply = try await browser.signIn(at: login, remember: true)
                if let secret {
                    #expect(reply.status == 200)
                    reply = try await submit(
                        browser, on: reply, otp: recoveryCode == nil ? code(secret, harness) : "",
                        recoveryCode: recoveryCode ?? "")
                }
                var location = try #require(reply.location, "\(reply.status) \(reply.text)")
                if location.hasPrefix("/consent") {
                    location = try #require(try await browser.decide(at: location, "allow").location)
                }
                let parameters = try #require(URLComponents(string: location)?.queryItems)
                let code = try #require(parameters.first { $0.name == "code" }?.value)
                let tokens = try await harness.token(
                    [
                        ("grant_type", "authorization_code"), ("code", code),
                        ("redirect_uri", client.redirectURIs[0]), ("code_verifier", pkce.verifier),
                    ], client: .of(client))
                #expect(tokens.status == 200)
                let verifier = try await harness.jwksVerifier()
                let claims = try verifier.verify(try #require(tokens.string("id_token")), algorithms: [.rs256]).claims()
                // Refreshed ID tokens say the same.
                let refreshed = try await harness.refresh(
                    try #require(tokens.string("refresh_token")), client: .of(client))
                let again = try verifier.verify(try #require(refreshed.string("id_token")), algorithms: [.rs256])
                    .claims()
                #expect(again["amr"] == claims["amr"])
                return ["amr": claims["amr"] ?? .null]
            }
            #expect(try await authorize(harness.browser(), secret: nil)["amr"] == .array(["pwd"]))
            let enrollment = try await enroll(try await signedInBrowser(harness), harness)
            harness.clock.advance(by: 30)
            #expect(try await authorize(harness.browser(), secret: enrollment.secret)["amr"] == .array(["pwd", "otp"]))
            let recovered = try await authorize(
                harness.browser(), secret: enrollment.secret, recoveryCode: enrollment.recoveryCodes[4])
            #expect(recovered["amr"] == .array(["pwd", "mfa"]))
            // "Keep me signed in" was carried through the second step.
            let sessions = try harness.store.sessions(userID: user.id)
            #expect(sessions.filter(\.isPersistent).count == 3)
            let discovery = try await harness.get("/.well-known/openid-configuration")
            #expect(discovery.json["claims_supported"]?.arrayValue?.contains(.string("amr")) == true)
        }
    }

    @Test func wrongCodesAreThrottledPerAccount() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let enrollment = try await enroll(try await signedInBrowser(harness), harness)
            harness.clock.advance(by: 30)
            let browser = harness.browser()
            let step = try await secondStep(browser)
            for _ in 0..<5 { #expect(try await submit(browser, on: step, otp: "000000").status == 200) }
            // Throttled: even the right code is refused for now, and in another browser too.
            let refused = try await submit(browser, on: step, otp: code(enrollment.secret, harness))
            #expect(refused.status == 429)
            #expect(refused.header("Retry-After") != nil)
            let elsewhere = harness.browser()
            #expect(try await submit(elsewhere, on: try await secondStep(elsewhere), otp: "000000").status == 429)
            #expect(browser.cookie("portico_session") == nil)
            harness.clock.advance(by: 61)
            let fresh = try await secondStep(browser)
            #expect(try await submit(browser, on: fresh, otp: code(enrollment.secret, harness)).status == 303)
        }
    }

    @Test func noSecretIsStoredInPlainText() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let enrollment = try await enroll(try await signedInBrowser(harness), harness)
            let stored = try #require(try harness.store.read { try $0.twoStepEnrollment(userID: user.id) })
            #expect(KeyEncryptionKey.isSealed(stored.sealedSecret))
            var bytes = Data()
            for suffix in ["", "-wal"] {
                let url = harness.directory.appendingPathComponent("portico.db" + suffix)
                if let data = try? Data(contentsOf: url) { bytes += data }
            }
            #expect(bytes.count > 4096)
            func contains(_ needle: [UInt8]) -> Bool {
                bytes.range(of: Data(needle)) != nil
            }
            #expect(!contains(Array(Base32.encode(enrollment.secret).utf8)))
            #expect(!contains(enrollment.secret))
            for code in enrollment.recoveryCodes {
                #expect(!contains(Array(code.utf8)))
                #expect(!contains(Array(code.replacingOccurrences(of: "-", with: "").utf8)))
                // Unkeyed digests of what is hashed (the code alone, or with its person) would let
                // anyone with the file test the 32^10 codes offline; only the keyed HMAC is stored.
                let normalized = code.lowercased().filter { $0 != "-" && $0 != " " }
                #expect(!contains(Digest.sha256.hash(normalized)))
                #expect(!contains(Digest.sha256.hash(user.id + "\n" + normalized)))
            }
            // Sanity: the search finds what is there.
            #expect(contains(Array(user.email.utf8)))
        }
    }

    @Test func thePagesAreInChineseToo() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let browser = try await signedInBrowser(harness)
            let page = try await browser.get(TwoStepEndpoint.path + "?ui_locales=zh-CN")
            #expect(page.text.contains("两步验证"))
            #expect(page.text.contains("扫描此二维码"))
            #expect(page.text.contains("lang=\"zh-CN\"") || page.text.contains("lang=\"zh-Hans\""))
        }
    }

    @Test func theKeyURIFollowsTheKeyURIFormat() {
        let secret = Array("12345678901234567890".utf8)
        let uri = TwoStepVerification.keyURI(secret: secret, email: "ann+shop@example.com", issuer: "Portico ID")
        #expect(
            uri
                == "otpauth://totp/Portico%20ID:ann%2Bshop%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
                + "&issuer=Portico%20ID&algorithm=SHA1&digits=6&period=30")
        #expect(TwoStepVerification.grouped(secret) == "GEZD GNBV GY3T QOJQ GEZD GNBV GY3T QOJQ")
        let rows = QRCodeSVG.modules(for: uri)
        #expect(rows != nil && rows?.count == rows?.first?.count && (rows?.count ?? 0) >= 21)
    }
}
