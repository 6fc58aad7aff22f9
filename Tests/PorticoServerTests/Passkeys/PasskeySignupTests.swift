import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Signing up with a passkey and no password, over real HTTP: the sign-up form's second button,
/// the mailed link's page running the registration ceremony, and the account that then exists
/// only with its passkey (no password opens it; the passkey signs in; it cannot be removed).
@Suite struct PasskeySignupTests {
    /// Signs `email` up with "a passkey instead"; returns the mailed link.
    /// `mails` is how many the outbox holds once this one is there.
    func signUp(_ provider: ProviderHarness, email: String, browser: TestBrowser, mails: Int = 1) async throws
        -> String
    {
        let page = try await browser.get(SignupEndpoint.path)
        #expect(page.text.contains(#"id="signup-passkey""#) && page.text.contains(PasskeyScript.path))
        let sent = try await accountSignUp(
            browser, [("name", "Pat Passkey"), ("email", email), (SignupEndpoint.passkeyField, "1")])
        #expect(sent.status == 200 && sent.text.contains(#"id="signup-sent""#), "\(sent.text)")
        return try signupLink(in: try await mail(to: email, in: provider, atLeast: mails))
    }

    /// Creation options for the link's page `form`.
    func options(_ browser: TestBrowser, form: TestReply) async throws -> [String: JSONValue] {
        let reply = try await browser.post(
            PasskeySignup.optionsPath,
            [
                ("csrf_token", try #require(form.hiddenField("csrf_token"))),
                ("token", try #require(form.hiddenField("token"))),
            ])
        #expect(reply.status == 200, "\(reply.text)")
        return reply.json
    }

    /// Posts the link's form with `device`'s registration for `options`, naming `handle`.
    func finish(
        _ browser: TestBrowser, form: TestReply, device: SoftwareAuthenticator, options: [String: JSONValue],
        handle: [UInt8]? = nil
    ) async throws -> TestReply {
        let challenge = try #require(options["challenge"]?.stringValue.flatMap(Base64URL.decode))
        let created = device.register(challenge: challenge)
        let credential: JSONValue = [
            "id": .string(Base64URL.encode(device.credentialID)),
            "clientDataJSON": .string(Base64URL.encode(created.clientDataJSON)),
            "attestationObject": .string(Base64URL.encode(created.attestationObject)),
        ]
        let offered = try #require(options["user"]?.objectValue?["id"]?.stringValue)
        return try await browser.post(
            SignupVerifyEndpoint.path,
            [
                ("csrf_token", try #require(form.hiddenField("csrf_token"))),
                ("token", try #require(form.hiddenField("token"))),
                (PasskeySignup.handleField, handle.map(Base64URL.encode) ?? offered),
                (PasskeyEndpoint.credentialField, credential.jsonString),
            ])
    }

    @Test func anAccountIsCreatedWithAPasskeyAndNoPassword() async throws {
        try await ProviderHarness.with { provider in
            let rp = try #require(PasskeyRelyingParty(issuer: provider.issuer))
            var device = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
            let browser = TestBrowser(base: provider.base)
            let link = try await signUp(provider, email: "pat@example.com", browser: browser)
            let form = try await browser.get(link)
            #expect(form.status == 200)
            #expect(form.text.contains(#"id="signup-passkey-form""#))
            #expect(form.text.contains(#"id="signup-passkey-unsupported""#))

            // The plain button's post (no passkey) makes no account and leaves the link working.
            let plain = try await accountConfirm(browser, link: link)
            #expect(plain.status == 400 && plain.text.contains(#"id="signup-passkey-refused""#))
            #expect(try provider.store.users().isEmpty)

            let offered = try await options(browser, form: form)
            let first = try #require(offered["user"]?.objectValue?["id"]?.stringValue.flatMap(Base64URL.decode))
            #expect(first.count == 64)
            #expect(offered["user"]?.objectValue?["name"]?.stringValue == "pat@example.com")
            let selection = offered["authenticatorSelection"]?.objectValue
            #expect(selection?["residentKey"]?.stringValue == "required")
            #expect(selection?["userVerification"]?.stringValue == "required")
            #expect(offered["excludeCredentials"]?.arrayValue?.isEmpty == true)

            // Another user handle than the one offered finds no challenge: refused, nothing made.
            let swapped = try await finish(
                browser, form: form, device: device, options: offered, handle: SecureRandom.bytes(count: 64))
            #expect(swapped.status == 400 && swapped.text.contains(#"id="signup-passkey-refused""#))
            #expect(try provider.store.users().isEmpty)
            // Another origin: refused too.
            var phished = device
            phished.origin = "https://evil.example"
            let elsewhere = try await finish(browser, form: form, device: phished, options: offered)
            #expect(elsewhere.status == 400)
            #expect(try provider.store.users().isEmpty)

            // Fresh options (a new challenge and user handle): the account takes this handle.
            let final = try await options(browser, form: form)
            let handle = try #require(final["user"]?.objectValue?["id"]?.stringValue.flatMap(Base64URL.decode))
            #expect(handle != first)
            let created = try await finish(browser, form: form, device: device, options: final)
            #expect(created.status == 200 && created.text.contains(#"id="account-ready""#), "\(created.text)")
            let user = try #require(try provider.store.users().first)
            #expect(user.email == "pat@example.com" && user.passwordHash.isEmpty && user.isEmailVerified)
            let stored = try provider.store.read { try $0.passkeyCredentials(userID: user.id) }
            #expect(stored.map(\.credentialID) == [device.credentialID])
            #expect(try provider.store.read { try $0.userID(passkeyUserHandle: handle) } == user.id)
            let account = try await browser.get(AccountEndpoint.path)
            #expect(account.status == 200 && account.text.contains(Base64URL.encode(device.credentialID)))

            // No password opens the account, not even an empty one.
            for password in ["", strongPassword] {
                let login = TestBrowser(base: provider.base)
                let page = try await login.get(AuthorizationFlow.loginPath)
                let reply = try await login.post(
                    AuthorizationFlow.loginPath,
                    [
                        ("csrf_token", try #require(page.hiddenField("csrf_token"))), ("email", "pat@example.com"),
                        ("password", password),
                    ])
                #expect(reply.status != 303 && login.cookie("portico_session") == nil)
            }

            // The passkey signs a fresh browser in.
            let other = TestBrowser(base: provider.base)
            let login = try await other.get(AuthorizationFlow.loginPath)
            let nonce = try #require(
                try await other.post(PasskeyEndpoint.signInOptionsPath, []).json["challenge"]?.stringValue.flatMap(
                    Base64URL.decode))
            device.userHandle = handle
            let assertion = device.assert(challenge: nonce)
            let credential: JSONValue = [
                "id": .string(Base64URL.encode(device.credentialID)),
                "clientDataJSON": .string(Base64URL.encode(assertion.clientDataJSON)),
                "authenticatorData": .string(Base64URL.encode(assertion.authenticatorData)),
                "signature": .string(Base64URL.encode(assertion.signature)),
                "userHandle": .string(Base64URL.encode(handle)),
            ]
            let signedIn = try await other.post(
                PasskeyEndpoint.signInPath,
                [
                    ("csrf_token", try #require(login.hiddenField("csrf_token"))),
                    ("passkey_credential", credential.jsonString),
                ])
            #expect(signedIn.status == 303, "\(signedIn.text)")
            #expect(try await other.get(AccountEndpoint.path).text.contains("pat@example.com"))

            // The only way to sign in: it cannot be removed.
            let csrf = try #require(account.hiddenField("csrf_token"))
            let removal = try await browser.post(
                PasskeyEndpoint.registrationPath,
                [("csrf_token", csrf), ("passkey_remove", Base64URL.encode(device.credentialID))])
            #expect(removal.status == 409)
        }
    }

    @Test func aCredentialIDAlreadyRegisteredMakesNoSecondAccount() async throws {
        try await ProviderHarness.with { provider in
            let rp = try #require(PasskeyRelyingParty(issuer: provider.issuer))
            let device = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
            let first = TestBrowser(base: provider.base)
            let firstForm = try await first.get(try await signUp(provider, email: "one@example.com", browser: first))
            let made = try await finish(
                first, form: firstForm, device: device, options: try await options(first, form: firstForm))
            #expect(made.status == 200 && made.text.contains(#"id="account-ready""#))

            let second = TestBrowser(base: provider.base)
            let link = try await signUp(provider, email: "two@example.com", browser: second, mails: 2)
            let form = try await second.get(link)
            let refused = try await finish(
                second, form: form, device: device, options: try await options(second, form: form))
            #expect(refused.status == 400 && refused.text.contains(#"id="signup-passkey-refused""#))
            #expect(try provider.store.users().map(\.email) == ["one@example.com"])
            #expect(second.cookie("portico_session") == nil)
            // The sign-up is still there: another passkey finishes it.
            let fresh = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
            let finished = try await finish(
                second, form: form, device: fresh, options: try await options(second, form: form))
            #expect(finished.status == 200 && finished.text.contains(#"id="account-ready""#))
            #expect(try provider.store.users().count == 2)
        }
    }

    @Test func theSignUpFormStillNeedsAPasswordWithoutThePasskeyButton() async throws {
        try await ProviderHarness.with { provider in
            let browser = TestBrowser(base: provider.base)
            let reply = try await accountSignUp(browser, [("name", "Pat"), ("email", "pat@example.com")])
            #expect(reply.status == 200 && reply.text.contains(#"id="signup-error""#))
            #expect(try await provider.outboxMessages(atLeast: 0).isEmpty)
        }
    }
}
