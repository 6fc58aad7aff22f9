import Foundation
import PorticoStore
import PorticoTesting
import Testing

/// "Continue as", sign-out and Your Account in Simplified Chinese when the app or the query
/// asks for it with `ui_locales`.
@Suite struct SessionPagesLanguageTests {
    @Test func thePagesSpeakSimplifiedChineseWhenAsked() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addLogoutClient()
            let browser = TestBrowser(base: provider.base)
            _ = try await sessionFirstAuthorization(browser, client: client, remember: true)
            browser.restart()

            let start = try await browser.get(
                TestBrowser.authorizePath(client: client, overrides: ["ui_locales": "zh-CN"]))
            let continuePage = try await browser.get(try #require(start.location))
            #expect(continuePage.text.contains(#"<html lang="zh-Hans""#))
            #expect(continuePage.text.contains("以 Ann Example 的身份继续"))
            #expect(continuePage.text.contains("不是您？"))

            let account = try await browser.get("/account?ui_locales=zh-Hans")
            #expect(account.text.contains("您已允许的应用"))
            #expect(account.text.contains("此设备"))
            #expect(account.text.contains("移除"))

            let logout = try await browser.get(
                "/oauth/logout?client_id=\(client.id)&ui_locales=zh-CN&post_logout_redirect_uri="
                    + AuthorizationResponseEncoding.encode(sessionTestSignedOutURI))
            #expect(logout.text.contains("退出 Portico？"))
            #expect(logout.hiddenField("ui_locales") == "zh-Hans")

            let english = try await browser.get("/account")
            #expect(english.text.contains("Apps you allowed"))
        }
    }
}
