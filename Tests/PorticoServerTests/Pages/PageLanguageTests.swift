import Foundation
import PorticoTesting
import Testing

@testable import PorticoServer

@Suite("Page language negotiation")
struct PageLanguageTests {
    @Test("tags map to the offered languages; Traditional Chinese is not Simplified")
    func tags() {
        #expect(PageLanguage(tag: "en") == .english)
        #expect(PageLanguage(tag: "en-GB") == .english)
        #expect(PageLanguage(tag: "zh") == .simplifiedChinese)
        #expect(PageLanguage(tag: "zh-CN") == .simplifiedChinese)
        #expect(PageLanguage(tag: "zh-Hans-HK") == .simplifiedChinese)
        #expect(PageLanguage(tag: "ZH-hans") == .simplifiedChinese)
        #expect(PageLanguage(tag: "zh-TW") == nil)
        #expect(PageLanguage(tag: "zh-Hant") == nil)
        #expect(PageLanguage(tag: "de-DE") == nil)
        #expect(PageLanguage(tag: "") == nil)
    }

    @Test("Accept-Language: highest weight wins, q=0 is refused, ties keep order, junk is ignored")
    func acceptLanguage() {
        #expect(PageLanguage.preferred(acceptLanguage: "zh-CN,zh;q=0.9,en;q=0.8") == .simplifiedChinese)
        #expect(PageLanguage.preferred(acceptLanguage: "de-DE, en;q=0.5, zh;q=0.7") == .simplifiedChinese)
        #expect(PageLanguage.preferred(acceptLanguage: "zh;q=0, en;q=0.1") == .english)
        #expect(PageLanguage.preferred(acceptLanguage: "en, zh") == .english)
        #expect(PageLanguage.preferred(acceptLanguage: "zh-TW, fr") == nil)
        #expect(PageLanguage.preferred(acceptLanguage: ";;,=,q=,zh;q=abc") == nil)
        #expect(PageLanguage.preferred(acceptLanguage: nil) == nil)
    }

    @Test("ui_locales comes before Accept-Language; English is the default")
    func negotiation() {
        #expect(PageLanguage.negotiate(uiLocales: "fr zh-CN", acceptLanguage: "en") == .simplifiedChinese)
        #expect(PageLanguage.negotiate(uiLocales: "fr", acceptLanguage: "zh") == .simplifiedChinese)
        #expect(PageLanguage.negotiate(uiLocales: "en", acceptLanguage: "zh") == .english)
        #expect(PageLanguage.negotiate(uiLocales: nil, acceptLanguage: "ja") == .english)
    }
}

/// The pages in both languages over real HTTP.
@Suite("Pages in English and Simplified Chinese")
struct LocalizedPagesTests {
    @Test("ui_locales=zh-CN carries through sign-in and consent, whatever the browser prefers")
    func uiLocalesCarriesThrough() async throws {
        try await ProviderHarness.with { provider in
            _ = try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base, acceptLanguage: "en-US,en;q=0.9")
            let start = try await browser.get(
                TestBrowser.authorizePath(client: client, overrides: ["ui_locales": "fr-FR zh-CN"]))
            let loginLocation = try #require(start.location)
            let login = try await browser.get(loginLocation)
            #expect(login.text.contains(#"<html lang="zh-Hans""#))
            #expect(login.text.contains("保持登录状态"))
            #expect(login.text.contains("忘记密码？"))
            #expect(login.text.contains(#"name="remember_me""#))

            let wrong = try await browser.signIn(at: loginLocation, password: "not the password")
            #expect(wrong.text.contains("您的电子邮件或密码不正确"))

            let signedIn = try await browser.signIn(at: loginLocation)
            let consentLocation = try #require(signedIn.location)
            let consent = try await browser.get(consentLocation)
            #expect(consent.text.contains(#"<html lang="zh-Hans""#))
            #expect(consent.text.contains("查看您的姓名、电子邮件地址和账户 ID"))
            #expect(consent.text.contains(#"name="decision" value="allow">允许<"#))
            #expect(!consent.text.contains("See your name"))
        }
    }

    @Test("Accept-Language picks the language when the app names none; English otherwise")
    func acceptLanguagePicks() async throws {
        try await ProviderHarness.with { provider in
            let chinese = TestBrowser(base: provider.base, acceptLanguage: "zh-CN,zh;q=0.9,en;q=0.5")
            let unknown = try await chinese.get("/oauth/authorize?client_id=nobody&response_type=code")
            #expect(unknown.status == 400)
            #expect(unknown.text.contains("我们无法让您登录此应用"))

            let german = TestBrowser(base: provider.base, acceptLanguage: "de-DE")
            let english = try await german.get("/oauth/authorize?client_id=nobody&response_type=code")
            #expect(english.text.contains("sign you in to this app"))
            #expect(english.text.contains(#"<html lang="en""#))

            let help = try await chinese.get("/help")
            #expect(help.status == 200)
            #expect(help.text.contains("关于“通过 Portico 登录”"))
            #expect(help.header("Vary") == "Accept-Language")
            let englishHelp = try await german.get("/help?ui_locales=en")
            #expect(englishHelp.text.contains("About Login with Portico"))
        }
    }

    @Test("discovery lists the page languages")
    func discoveryListsLanguages() async throws {
        try await ProviderHarness.with { provider in
            let browser = TestBrowser(base: provider.base)
            let discovery = try await browser.get("/.well-known/openid-configuration")
            #expect(discovery.text.contains(#""ui_locales_supported":["en","zh-Hans"]"#))
        }
    }
}
