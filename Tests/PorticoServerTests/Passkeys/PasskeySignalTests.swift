import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Adding or removing a passkey is a CAEP credential change for the apps the person allowed,
/// as a password or two-step change is: platform for a synced passkey, roaming for one bound
/// to its device.
@Suite struct PasskeySignalTests {
    @Test func addingAndRemovingPasskeysAnnouncesCredentialChanges() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let shop = try harness.addSignalReceiver(name: "Shop")
            let now = harness.clock.now
            try harness.store.transaction {
                try $0.saveConsent(
                    userID: user.id, clientID: shop.id, scopes: ["openid", "profile", "email"], now: now)
            }
            let token = try await harness.streamToken(for: shop)
            _ = try await harness.createStream(token: token, delivery: ["method": .string(SharedSignals.pollMethod)])
            let rp = try #require(PasskeyRelyingParty(issuer: harness.issuer))
            var securityKey = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
            var laptop = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin, synced: true)
            let flows = PasskeyFlowTests()
            let (browser, csrf) = try await flows.signedIn(harness)
            try await flows.add(&securityKey, browser: browser, csrf: csrf)
            try await flows.add(&laptop, browser: browser, csrf: csrf)
            let removed = try await browser.post(
                PasskeyEndpoint.registrationPath,
                [("csrf_token", csrf), ("passkey_remove", Base64URL.encode(securityKey.credentialID))])
            #expect(removed.status == 303)

            let reply = try await harness.json(
                "POST", SharedSignals.pollPath, token: token, body: ["returnImmediately": true])
            #expect(reply.status == 200, "\(reply.text)")
            var changes: [String] = []
            var transactions: Set<String> = []
            for (_, set) in try #require(reply.json["sets"]?.objectValue) {
                let claims = try await harness.verifiedSET(try #require(set.stringValue), for: shop)
                #expect(claims.event?.type == SharedSignals.Event.credentialChange.rawValue)
                let fields = try #require(claims.event?.fields)
                changes.append(
                    "\(fields["credential_type"]?.stringValue ?? "?") \(fields["change_type"]?.stringValue ?? "?")")
                transactions.insert(claims["txn"]?.stringValue ?? "")
            }
            #expect(changes.sorted() == ["fido2-platform create", "fido2-roaming create", "fido2-roaming delete"])
            #expect(transactions.count == 3)
        }
    }
}
