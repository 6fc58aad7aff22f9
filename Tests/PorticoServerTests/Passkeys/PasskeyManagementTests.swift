import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Your Account's passkey list: rename, remove (ending nothing else), the last way to sign in
/// kept, and a mail on every add and remove.
@Suite struct PasskeyManagementTests {
    @Test func renameRemoveAndLastMethod() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let rp = try #require(PasskeyRelyingParty(issuer: harness.issuer))
            var phone = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
            var laptop = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin, synced: true)
            let flows = PasskeyFlowTests()
            let (browser, csrf) = try await flows.signedIn(harness)
            try await flows.add(&phone, browser: browser, csrf: csrf)
            try await flows.add(&laptop, browser: browser, csrf: csrf)
            let added = try await harness.outboxMessages(atLeast: 2).filter {
                $0.contains("A passkey was added to your account")
            }
            #expect(added.count == 2)
            let phoneID = Base64URL.encode(phone.credentialID)
            let laptopID = Base64URL.encode(laptop.credentialID)

            // The list: both, with rename and remove per passkey, synced or this device only.
            var page = try await browser.get(AccountEndpoint.path)
            #expect(page.text.contains(#"name="passkey_remove" value="\#(phoneID)""#))
            #expect(page.text.contains(#"name="passkey_name""#))
            #expect(
                page.text.contains(PasskeyText.synced[.english]) && page.text.contains(PasskeyText.thisDevice[.english])
            )

            // Rename.
            let renamed = try await browser.post(
                PasskeyEndpoint.registrationPath,
                [("csrf_token", csrf), ("passkey_rename", phoneID), ("passkey_name", "Ann's phone")])
            #expect(renamed.status == 303)
            #expect(try harness.store.read { try $0.passkeyCredential(id: phone.credentialID) }?.name == "Ann's phone")
            page = try await browser.get(AccountEndpoint.path)
            #expect(page.text.contains("Ann&#39;s phone") || page.text.contains("Ann&#x27;s phone"))

            // Remove: gone, mailed, and this browser is still signed in.
            let removed = try await browser.post(
                PasskeyEndpoint.registrationPath, [("csrf_token", csrf), ("passkey_remove", phoneID)])
            #expect(removed.status == 303)
            #expect(try harness.store.read { try $0.passkeyCredential(id: phone.credentialID) } == nil)
            _ = try await harness.outboxMessages(containing: "A passkey was removed from your account")
            #expect(try await browser.get(AccountEndpoint.path).status == 200)
            // A removed passkey signs in no more.
            let other = harness.browser()
            let login = try await other.get(AuthorizationFlow.loginPath)
            let assertion = phone.assert(challenge: try await flows.challenge(other))
            let refused = try await other.post(
                PasskeyEndpoint.signInPath,
                try flows.signInFields(login, assertion, credentialID: phone.credentialID, userHandle: phone.userHandle)
            )
            #expect(refused.status == 200 && refused.text.contains(PasskeyText.refused[.english]))

            // Someone else's id, or one that is not base64url: refused, nothing removed.
            let bogus = try await browser.post(
                PasskeyEndpoint.registrationPath, [("csrf_token", csrf), ("passkey_remove", "!!")])
            #expect(bogus.status == 400)

            // Without a password, the last passkey is the last way to sign in: it stays.
            var passwordless = try #require(try harness.store.read { try $0.user(id: user.id) })
            passwordless.passwordHash = ""
            try harness.store.transaction { try $0.update(passwordless) }
            let kept = try await browser.post(
                PasskeyEndpoint.registrationPath, [("csrf_token", csrf), ("passkey_remove", laptopID)])
            #expect(kept.status == 409)
            #expect(kept.text.contains(#"id="passkey-last-method""#))
            #expect(try harness.store.read { try $0.passkeyCredential(id: laptop.credentialID) } != nil)
        }
    }
}
