import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// An account made with a passkey alone has no current password to ask for: "Set a password"
/// takes a passkey sign-in of the last five minutes instead, and refuses (changing nothing)
/// after that.
@Suite struct PasskeyOnlyPasswordTests {
    @Test func aPasskeyOnlyAccountSetsAFirstPasswordAfterARecentPasskeySignIn() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let rp = try #require(PasskeyRelyingParty(issuer: harness.issuer))
            var device = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin, synced: true)
            let flows = PasskeyFlowTests()
            let (first, csrf) = try await flows.signedIn(harness)
            try await flows.add(&device, browser: first, csrf: csrf)
            // The account becomes passkey-only, as one signed up with a passkey is.
            var passkeyOnly = try #require(try harness.store.read { try $0.user(id: user.id) })
            passkeyOnly.passwordHash = ""
            try harness.store.transaction { try $0.update(passkeyOnly) }

            let newPassword = [
                ("password", "a first password for Ann"), ("password_confirmation", "a first password for Ann"),
            ]
            // A recent password sign-in does not count (a browser left signed in would be enough).
            let byPassword = try await first.get(PasswordChangeEndpoint.path)
            #expect(byPassword.status == 200 && byPassword.text.contains(#"id="password-set-reauthenticate""#))
            #expect(!byPassword.text.contains(#"name="password""#))

            // A passkey sign-in more than five minutes old does not either; nothing changes.
            let signInWithPasskey = { () async throws -> TestBrowser in
                let browser = harness.browser()
                let login = try await browser.get(AuthorizationFlow.loginPath)
                let assertion = device.assert(challenge: try await flows.challenge(browser))
                let signedIn = try await browser.post(
                    PasskeyEndpoint.signInPath,
                    try flows.signInFields(
                        login, assertion, credentialID: device.credentialID, userHandle: device.userHandle))
                #expect(signedIn.status == 303, "\(signedIn.text)")
                return browser
            }
            let earlier = try await signInWithPasskey()
            let shown = try await earlier.get(PasswordChangeEndpoint.path)
            let earlierCSRF = try #require(shown.hiddenField("csrf_token"))
            harness.clock.advance(by: 600)
            let stale = try await earlier.get(PasswordChangeEndpoint.path)
            #expect(stale.text.contains(#"id="password-set-reauthenticate""#))
            let late = try await earlier.post(PasswordChangeEndpoint.path, [("csrf_token", earlierCSRF)] + newPassword)
            #expect(late.status == 403 && late.text.contains(#"id="password-set-reauthenticate""#))
            #expect(try harness.store.read { try $0.user(id: user.id) }?.passwordHash.isEmpty == true)

            // A passkey sign-in just now: the form asks for no current password and sets one.
            let browser = try await signInWithPasskey()
            #expect(try await browser.get(AccountEndpoint.path).text.contains(PasswordChangeText.setTitle[.english]))
            let form = try await browser.get(PasswordChangeEndpoint.path)
            #expect(form.status == 200 && form.text.contains(PasswordChangeText.setTitle[.english]))
            #expect(!form.text.contains(#"name="current_password""#))
            let set = try await browser.post(
                PasswordChangeEndpoint.path,
                [
                    ("csrf_token", try #require(form.hiddenField("csrf_token"))),
                    ("password", "a first password for Ann"), ("password_confirmation", "a first password for Ann"),
                ])
            #expect(set.status == 303, "\(set.text)")
            let stored = try #require(try harness.store.read { try $0.user(id: user.id) })
            #expect(!stored.passwordHash.isEmpty)
            #expect(
                try harness.store.read { try $0.auditEvents(involving: user.id, limit: 50) }
                    .contains { $0.action == "user.password_set" })

            // The new password signs a fresh browser in; the form is a change form from now on.
            let fresh = harness.browser()
            let start = try await fresh.get(AccountEndpoint.path)
            let reply = try await fresh.signIn(at: try #require(start.location), password: "a first password for Ann")
            #expect(reply.status == 303)
            #expect(try await fresh.get(PasswordChangeEndpoint.path).text.contains(#"name="current_password""#))
        }
    }
}
