/// The words of the "Continue as …" page, in every page language.
///
/// Texts that take a value expect it already escaped (they are put into markup as they are).
enum ContinueText {
    private static let platform = PageLayout.platformName

    /// The heading and title.
    static func title(_ name: String) -> Localized {
        Localized("Continue as \(name)", zh: "以 \(name) 的身份继续")
    }
    /// The heading and title for a public app: "Continue to <app> as <name>".
    static func title(_ name: String, app: String) -> Localized {
        Localized("Continue to \(app) as \(name)", zh: "以 \(name) 的身份继续使用 \(app)")
    }
    /// Under the app's name.
    static let wants = Localized(
        "wants you to sign in with your \(platform) account", zh: "希望您使用 \(platform) 账户登录")
    /// Who is signed in (contains markup).
    static func signedInAs(_ email: String) -> Localized {
        Localized(
            #"You are signed in as <strong class="who-email">\#(email)</strong>."#,
            zh: #"您已登录为 <strong class="who-email">\#(email)</strong>。"#)
    }
    /// Why the page is shown.
    static let kept = Localized("This device kept you signed in.", zh: "此设备保持了您的登录状态。")
    /// Why the page is shown to a public app that was allowed before.
    static let allowedBefore = Localized(
        "You allowed this app before. Continue only if you opened it just now.",
        zh: "您以前允许过此应用。仅当您刚刚打开它时才继续。")
    /// The primary button.
    static let continueButton = Localized("Continue", zh: "继续")
    /// The "Not you?" button.
    static let notYou = Localized("Not you? Sign in with another account", zh: "不是您？使用其他账户登录")
}
