import Foundation
import PorticoStore
import PorticoTesting
import Testing

/// The device flow asking for scope `companion` (issue 33): `portico-agent login --device`
/// needs it, so it is not refused, but its `/device` consent page warns, in English and Chinese,
/// that Allow signs the device in as the person for every app there; a phished code would
/// otherwise look like any TV's.
@Suite struct DeviceCompanionWarningTests {
    @Test func theAgentsDeviceSignInWarnsThatItSignsInEverywhereOnThatDevice() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let companion = try TestCompanion.register(in: harness)
            let television = try harness.addDeviceClient()

            let login = try await harness.startDeviceLogin(companion, scope: "openid companion")
            let browser = TestBrowser(base: harness.base)
            let consent = try await browser.reachDeviceConsent(code: login.userCode)
            #expect(consent.text.contains(#"id="companion-warning""#))
            #expect(consent.text.contains("This signs Portico agent in as you everywhere on that device"))
            #expect(consent.text.contains("Only continue if you started this yourself, on your own device"))

            let chinese = TestBrowser(base: harness.base, acceptLanguage: "zh-CN,zh;q=0.9")
            let chineseLogin = try await harness.startDeviceLogin(companion, scope: "openid companion")
            let chineseConsent = try await chinese.reachDeviceConsent(code: chineseLogin.userCode)
            #expect(chineseConsent.text.contains(#"id="companion-warning""#))
            #expect(chineseConsent.text.contains("这会让 Portico agent 在那台设备上的所有地方以您的身份登录"))
            #expect(chineseConsent.text.contains("只有当这是您自己刚刚在您自己的设备上发起的"))

            // The agent still signs in this way once the person allows.
            _ = try await browser.decideDevice(on: consent, "allow")
            let tokens = try await harness.post(
                "/oauth/token",
                [
                    ("grant_type", ProviderHarness.deviceGrantType), ("client_id", companion.id),
                    ("device_code", login.deviceCode), ("agent_host", "build-box"),
                ])
            #expect(tokens.status == 200)
            #expect(tokens.string("refresh_token") != nil)

            // A TV's device login has no such warning.
            let tvLogin = try await harness.startDeviceLogin(television)
            let tvConsent = try await TestBrowser(base: harness.base).reachDeviceConsent(code: tvLogin.userCode)
            #expect(tvConsent.text.contains(#"name="decision" value="allow""#))
            #expect(!tvConsent.text.contains("companion-warning"))
        }
    }
}
