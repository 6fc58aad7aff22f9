/// The words of the consent page, in every page language.
///
/// Texts that take a value expect it already escaped (they are put into markup as they are).
enum ConsentText {
    private static let platform = PageLayout.platformName

    /// Under the app's name.
    static let wantsToUse = Localized("wants to use your \(platform) account", zh: "想要使用您的 \(platform) 账户")
    /// The heading above the permissions.
    static func allowTo(_ app: String) -> Localized {
        Localized("Allow \(app) to:", zh: "允许 \(app)：")
    }
    /// The heading of permissions granted before.
    static func alreadyAllowed(_ app: String) -> Localized {
        Localized("You already allowed \(app) to:", zh: "您之前已允许 \(app)：")
    }
    /// The allow button.
    static let allow = Localized("Allow", zh: "允许")
    /// The deny button.
    static let cancel = Localized("Cancel", zh: "取消")
    /// Where permissions can be taken back (contains a link).
    static let removeAnyTime = Localized(
        #"You can remove this permission at any time in <a href="/account">Your Account</a>."#,
        zh: #"您可以随时在<a href="/account">您的账户</a>中移除此权限。"#)
    /// The warning on an app the operator has not verified (registered through
    /// `POST /oauth/register`, not yet `portico client verify`).
    static let unverified = Localized(
        "\(platform) has not verified this app. Allow it only if you know and trust who made it.",
        zh: "\(platform) 尚未验证此应用。仅当您了解并信任其开发者时才允许。")
    /// The top corner's "Signed in as <name>".
    static func signedInAs(_ name: String) -> Localized {
        Localized(
            #"Signed in as <span class="who">\#(name)</span>"#, zh: #"已登录为 <span class="who">\#(name)</span>"#)
    }
    /// The switch-account button.
    static let switchAccount = Localized("Not you? Switch account", zh: "不是您？切换账户")
    /// The app's privacy policy link.
    static func privacyPolicy(app: String, url: String) -> Localized {
        Localized(
            #"See how \#(app) uses your data in its <a href="\#(url)" rel="noopener">privacy policy</a>."#,
            zh: #"查看 \#(app) 如何使用您的数据：<a href="\#(url)" rel="noopener">隐私政策</a>。"#)
    }
    /// When the app gave no privacy policy.
    static func noPrivacyPolicy(_ app: String) -> Localized {
        Localized("\(app) has not given a privacy policy.", zh: "\(app) 未提供隐私政策。")
    }
}
