import Foundation
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Device login over real HTTP, person side: the `/device` pages driven by posting their forms,
/// with sign-in on the ordinary login page, the device consent, and the throttle on wrong codes.
@Suite(.serialized) struct DevicePageTests {
    @Test func enteringTheCodeSigningInAndAllowingConnectsTheDevice() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addDeviceClient(name: "Living Room TV")
            let started = try await harness.startDeviceLogin(client, scope: "openid profile")
            let browser = TestBrowser(base: harness.base)

            // Typed as a person would: lower case, without the dash.
            let typed = started.userCode.lowercased().replacingOccurrences(of: "-", with: "")
            let consent = try await browser.reachDeviceConsent(code: typed)
            #expect(consent.status == 200)
            #expect(consent.text.contains("Living Room TV"))
            #expect(consent.text.contains("on your TV or device"))
            #expect(consent.text.contains(started.userCode))
            #expect(consent.text.contains("Ann Example"))
            #expect(consent.text.contains(#"name="decision" value="allow""#))
            #expect(consent.text.contains(#"name="decision" value="deny""#))
            #expect(consent.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
            // Not decided yet: the device still waits.
            #expect(try await harness.poll(started, clientID: client.id).string("error") == "authorization_pending")

            let done = try await browser.decideDevice(on: consent, "allow")
            #expect(done.status == 200)
            #expect(done.text.contains("Your device is connected"))
            #expect(try harness.store.consent(userID: user.id, clientID: client.id)?.scopes == ["openid", "profile"])

            harness.clock.advance(by: 10)
            let tokens = try await harness.poll(started, clientID: client.id)
            #expect(tokens.status == 200, "\(tokens.text)")
            #expect(tokens.string("id_token") != nil)

            // The same consent form cannot be sent twice.
            let replay = try await browser.decideDevice(on: consent, "allow")
            #expect(replay.status == 400)
            #expect(replay.text.contains("This code is no longer valid"))
        }
    }

    @Test func theCompleteURIOfASignedInPersonLeadsStraightToConsent() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let client = try harness.addDeviceClient()
            let first = try await harness.startDeviceLogin(client)
            let browser = TestBrowser(base: harness.base)
            _ = try await browser.decideDevice(
                on: try await browser.reachDeviceConsent(code: first.userCode), "allow")

            let second = try await harness.startAmazonDeviceLogin(client)
            let complete = try await browser.get("/device?user_code=\(second.userCode)")
            #expect(complete.status == 302)
            let location = try #require(complete.location)
            #expect(location.hasPrefix("/device?request="))
            let consent = try await browser.get(location)
            #expect(consent.text.contains(second.userCode))
            // Even with consent given before, the device consent is shown: it binds the code.
            let denied = try await browser.decideDevice(on: consent, "deny")
            #expect(denied.status == 200)
            #expect(denied.text.contains("The device was not connected"))
            #expect(try await harness.pollAmazon(second).string("error") == "access_denied")
        }
    }

    @Test func unknownAndExpiredCodesSayWhatHappened() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let client = try harness.addDeviceClient()
            let browser = TestBrowser(base: harness.base)
            let form = try await browser.get("/device")
            let token = try #require(form.hiddenField("csrf_token"))

            let unknown = try await browser.post("/device", [("csrf_token", token), ("user_code", "BCDF-GHJK")])
            #expect(unknown.status == 400)
            #expect(unknown.text.contains("That code didn&#39;t work"))
            #expect(unknown.text.contains(#"value="BCDF-GHJK""#))
            let empty = try await browser.post("/device", [("csrf_token", token), ("user_code", " - ")])
            #expect(empty.status == 400)
            #expect(empty.text.contains("Enter the code"))

            // Expired before it was entered.
            let old = try await harness.startDeviceLogin(client)
            harness.clock.advance(by: 601)
            let expired = try await browser.post("/device", [("csrf_token", token), ("user_code", old.userCode)])
            #expect(expired.status == 400)
            #expect(expired.text.contains("That code didn&#39;t work"))

            // Expired while the person was on the consent page.
            let started = try await harness.startDeviceLogin(client)
            let consent = try await browser.reachDeviceConsent(code: started.userCode)
            harness.clock.advance(by: 601)
            let late = try await browser.decideDevice(on: consent, "allow")
            #expect(late.status == 400)
            #expect(late.text.contains("This code is no longer valid"))
            #expect(try await harness.poll(started, clientID: client.id).string("error") == "expired_token")

            // A form without its CSRF token is refused.
            let forged = try await browser.post("/device", [("user_code", started.userCode)])
            #expect(forged.status == 403)
        }
    }

    @Test func afterTenWrongCodesFromOneAddressFurtherTriesAreRefused() async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addDeviceClient()
            let started = try await harness.startDeviceLogin(client)
            let browser = TestBrowser(base: harness.base)
            let token = try #require(try await browser.get("/device").hiddenField("csrf_token"))
            let wrong = started.userCode == "BCDF-GHJK" ? "BCDF-GHJL" : "BCDF-GHJK"
            for attempt in 1...10 {
                let reply = try await browser.post("/device", [("csrf_token", token), ("user_code", wrong)])
                #expect(reply.status == 400, "attempt \(attempt)")
            }
            let eleventh = try await browser.post("/device", [("csrf_token", token), ("user_code", wrong)])
            #expect(eleventh.status == 429)
            #expect(eleventh.text.contains("Too many attempts"))
            #expect(Int(eleventh.header("Retry-After") ?? "") ?? 0 > 0)
            // While blocked, even the right code is refused, by form and by link.
            let right = try await browser.post("/device", [("csrf_token", token), ("user_code", started.userCode)])
            #expect(right.status == 429)
            let link = try await browser.get("/device?user_code=\(started.userCode)")
            #expect(link.status == 429)
            // After the window, a right code works again.
            harness.clock.advance(by: 15 * 60 + 1)
            let fresh = try await harness.startDeviceLogin(client)
            let later = try await browser.post("/device", [("csrf_token", token), ("user_code", fresh.userCode)])
            #expect(later.status == 303)
            #expect(later.location?.hasPrefix("/login?request=") == true)
        }
    }

    @Test func switchingAccountSignsOutAndReturnsToSignIn() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let bob = try harness.addUser(email: "bob@example.com", name: "Bob Example")
            let client = try harness.addDeviceClient()
            let started = try await harness.startDeviceLogin(client)
            let browser = TestBrowser(base: harness.base)
            let consent = try await browser.reachDeviceConsent(code: started.userCode)
            let switched = try await browser.decideDevice(on: consent, "switch")
            #expect(switched.status == 303)
            let login = try #require(switched.location)
            #expect(login.hasPrefix("/login?request="))
            #expect(browser.cookie("portico_session") == nil)
            let signedIn = try await browser.signIn(at: login, email: "bob@example.com")
            let bobsConsent = try await browser.get(try #require(signedIn.location))
            #expect(bobsConsent.text.contains("Bob Example"))
            _ = try await browser.decideDevice(on: bobsConsent, "allow")
            let tokens = try await harness.poll(started, clientID: client.id)
            #expect(tokens.status == 200)
            let stored = try harness.store.deviceAuthorization(deviceCode: started.deviceCode)
            #expect(stored?.userID == bob.id)
        }
    }

    @Test func thePagesSpeakSimplifiedChineseWhenAsked() async throws {
        try await ProviderHarness.with { harness in
            let browser = TestBrowser(base: harness.base)
            let form = try await browser.get("/device?ui_locales=zh-CN")
            #expect(form.status == 200)
            #expect(form.text.contains(#"<html lang="zh-Hans""#))
            #expect(form.text.contains("连接电视或设备"))
            let english = try await browser.get("/device")
            #expect(english.text.contains("Connect a TV or device"))
        }
    }

    @Test func aDeviceSignInCannotBeUsedOnTheAppConsentPage() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let client = try harness.addDeviceClient()
            let started = try await harness.startDeviceLogin(client)
            let browser = TestBrowser(base: harness.base)
            let consent = try await browser.reachDeviceConsent(code: started.userCode)
            let seal = try #require(consent.hiddenField("request"))
            let misused = try await browser.post(
                "/consent",
                [
                    ("csrf_token", try #require(consent.hiddenField("csrf_token"))), ("request", seal),
                    ("decision", "allow"),
                ])
            #expect(misused.status == 400)
            #expect(misused.location == nil)
            // Shown there, it goes back to the device page.
            let shown = try await browser.get("/consent?request=\(seal)")
            #expect(shown.location?.hasPrefix("/device?request=") == true)
            #expect(try await harness.poll(started, clientID: client.id).string("error") == "authorization_pending")
        }
    }
}
