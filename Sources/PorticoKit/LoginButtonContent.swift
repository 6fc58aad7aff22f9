import Foundation

/// What the branded "Login with Portico" button says and how it looks, in the person's
/// language: the one place both the SwiftUI button (``LoginWithPorticoButton``) and the UIKit
/// one (`UIButton.loginWithPortico(content:action:)`) take their words and colours from, so
/// the two never drift apart and the choice is tested without a screen.
///
/// The language follows the person's preferred languages in order: the first English or
/// Chinese one wins (Traditional for `zh-Hant` and for Taiwan, Hong Kong and Macao, else
/// Simplified); with neither, English.
public struct LoginButtonContent: Sendable, Hashable {
    /// The languages the button speaks.
    public enum Language: String, Sendable, Hashable, CaseIterable {
        /// English.
        case english = "en"
        /// Chinese in simplified characters (mainland China, Singapore).
        case simplifiedChinese = "zh-Hans"
        /// Chinese in traditional characters (Taiwan, Hong Kong, Macao).
        case traditionalChinese = "zh-Hant"
    }

    /// A colour as sRGB components from 0 to 1, so that both UI frameworks build the same one.
    public struct Color: Sendable, Hashable {
        /// Red, 0...1.
        public let red: Double
        /// Green, 0...1.
        public let green: Double
        /// Blue, 0...1.
        public let blue: Double
    }

    /// The language the button speaks.
    public let language: Language

    /// Portico's brand colour, the button's background.
    public static let background = Color(red: 0.11, green: 0.29, blue: 0.62)
    /// The title's colour on ``background`` (white: a contrast ratio above 7:1).
    public static let foreground = Color(red: 1, green: 1, blue: 1)

    /// The button for `language`.
    public init(language: Language) {
        self.language = language
    }

    /// The button for the first English or Chinese language in `preferredLanguages` (BCP 47
    /// tags such as `zh-Hans-CN`, `zh-TW` or `en-GB`), English when there is none.
    public init(preferredLanguages: [String] = Locale.preferredLanguages) {
        self.init(language: Self.language(for: preferredLanguages))
    }

    /// The button's title.
    public var title: String {
        switch language {
        case .english: "Login with Portico"
        case .simplifiedChinese: "使用 Portico 登录"
        case .traditionalChinese: "使用 Portico 登入"
        }
    }

    /// What VoiceOver says the button does, after its title.
    public var accessibilityHint: String {
        switch language {
        case .english: "Opens Portico to sign you in to this app."
        case .simplifiedChinese: "打开 Portico 以登录此应用。"
        case .traditionalChinese: "開啟 Portico 以登入此 App。"
        }
    }

    /// The first English or Chinese language among `tags`, English when there is none.
    static func language(for tags: [String]) -> Language {
        for tag in tags {
            let parts = tag.replacingOccurrences(of: "_", with: "-").lowercased().split(separator: "-")
            guard let primary = parts.first else { continue }
            if primary == "en" { return .english }
            guard primary == "zh" else { continue }
            let rest = Set(parts.dropFirst())
            if rest.contains("hant") { return .traditionalChinese }
            if rest.contains("hans") { return .simplifiedChinese }
            return rest.isDisjoint(with: ["tw", "hk", "mo"]) ? .simplifiedChinese : .traditionalChinese
        }
        return .english
    }
}
