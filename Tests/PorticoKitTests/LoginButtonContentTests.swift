import Foundation
import Testing

@testable import PorticoKit

/// The branded button's words: the language choice both the SwiftUI and the UIKit button use.
struct LoginButtonContentTests {
    @Test(arguments: [
        (["en-US"], LoginButtonContent.Language.english),
        (["zh-Hans-CN"], .simplifiedChinese),
        (["zh-CN"], .simplifiedChinese),
        (["zh_SG"], .simplifiedChinese),
        (["zh"], .simplifiedChinese),
        (["zh-Hant-TW"], .traditionalChinese),
        (["zh-TW"], .traditionalChinese),
        (["zh-HK"], .traditionalChinese),
        (["zh-Hant"], .traditionalChinese),
        (["zh-Hans-HK"], .simplifiedChinese),
        (["fr-FR", "zh-Hans-CN", "en-US"], .simplifiedChinese),
        (["de-DE", "en-GB", "zh-CN"], .english),
        (["fr-FR", "ja-JP"], .english),
        ([], .english),
    ])
    func theFirstEnglishOrChineseLanguageWins(tags: [String], expected: LoginButtonContent.Language) {
        #expect(LoginButtonContent(preferredLanguages: tags).language == expected)
    }

    @Test func eachLanguageHasItsOwnTitleAndHint() {
        #expect(LoginButtonContent(language: .english).title == "Login with Portico")
        #expect(LoginButtonContent(language: .simplifiedChinese).title == "使用 Portico 登录")
        #expect(LoginButtonContent(language: .traditionalChinese).title == "使用 Portico 登入")
        let all = LoginButtonContent.Language.allCases.map(LoginButtonContent.init(language:))
        #expect(Set(all.map(\.title)).count == all.count)
        #expect(Set(all.map(\.accessibilityHint)).count == all.count)
        #expect(all.allSatisfy { $0.title.contains("Portico") && $0.accessibilityHint.contains("Portico") })
    }

    @Test func theTitleIsReadableOnTheBrandColour() {
        // WCAG 2 contrast ratio of the title colour on the background: at least 4.5:1 (AA).
        func luminance(_ color: LoginButtonContent.Color) -> Double {
            func linear(_ value: Double) -> Double {
                value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * linear(color.red) + 0.7152 * linear(color.green) + 0.0722 * linear(color.blue)
        }
        let ratio =
            (luminance(LoginButtonContent.foreground) + 0.05) / (luminance(LoginButtonContent.background) + 0.05)
        #expect(ratio >= 4.5)
    }
}
