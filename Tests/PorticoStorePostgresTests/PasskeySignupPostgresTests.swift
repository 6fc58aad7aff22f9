import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Sign-up with a passkey and no password on PostgreSQL, over real HTTP: the account, its user
/// handle and passkey written in one transaction, and a credential id already registered
/// rolling the whole transaction back (no second account, the sign-up still there).
@Suite(TestServer.required) struct PasskeySignupPostgresTests {
    func link(_ provider: ProviderHarness, email: String, mails: Int, browser: TestBrowser) async throws -> String {
        let page = try await browser.get(SignupEndpoint.path)
        let sent = try await browser.post(
            SignupEndpoint.path,
            [
                ("csrf_token", try #require(page.hiddenField("csrf_token"))), ("name", "Pat Passkey"),
                ("email", email), (SignupEndpoint.passkeyField, "1"),
            ])
        #expect(sent.status == 200)
        let messages = try await provider.outboxMessages(atLeast: mails)
        let message = try #require(messages.last { $0.contains("\r\nTo: \(email)\r\n") })
        let range = try #require(message.range(of: #"/signup/verify\?token=[^\s]+"#, options: .regularExpression))
        return String(message[range])
    }

    func finish(_ browser: TestBrowser, form: TestReply, device: SoftwareAuthenticator) async throws -> TestReply {
        let fields = [
            ("csrf_token", try #require(form.hiddenField("csrf_token"))),
            ("token", try #require(form.hiddenField("token"))),
        ]
        let options = try await browser.post(PasskeySignup.optionsPath, fields).json
        let challenge = try #require(options["challenge"]?.stringValue.flatMap(Base64URL.decode))
        let created = device.register(challenge: challenge)
        let credential: JSONValue = [
            "id": .string(Base64URL.encode(device.credentialID)),
            "clientDataJSON": .string(Base64URL.encode(created.clientDataJSON)),
            "attestationObject": .string(Base64URL.encode(created.attestationObject)),
        ]
        return try await browser.post(
            SignupVerifyEndpoint.path,
            fields + [
                (PasskeySignup.handleField, try #require(options["user"]?.objectValue?["id"]?.stringValue)),
                (PasskeyEndpoint.credentialField, credential.jsonString),
            ])
    }

    @Test func aPasskeySignUpCreatesOneAccountAndADuplicateCredentialRollsBack() async throws {
        let database = try TemporaryDatabase()
        try await ProviderHarness.with(database: .postgres(url: database.url)) { provider in
            let rp = try #require(PasskeyRelyingParty(issuer: provider.issuer))
            let device = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
            let first = TestBrowser(base: provider.base)
            let firstForm = try await first.get(
                try await link(provider, email: "one@example.com", mails: 1, browser: first))
            let made = try await finish(first, form: firstForm, device: device)
            #expect(made.status == 200 && made.text.contains(#"id="account-ready""#), "\(made.text)")
            let user = try #require(try provider.store.users().first)
            #expect(user.passwordHash.isEmpty)
            #expect(try provider.store.read { try $0.passkeyCredentials(userID: user.id) }.count == 1)

            let second = TestBrowser(base: provider.base)
            let form = try await second.get(
                try await link(provider, email: "two@example.com", mails: 2, browser: second))
            let refused = try await finish(second, form: form, device: device)
            #expect(refused.status == 400 && refused.text.contains(#"id="signup-passkey-refused""#))
            #expect(try provider.store.users().map(\.email) == ["one@example.com"])
            let fresh = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
            let finished = try await finish(second, form: form, device: fresh)
            #expect(finished.status == 200 && finished.text.contains(#"id="account-ready""#))
            #expect(try provider.store.users().count == 2)
        }
    }
}
