/// The words of the "Continue as …" page, in every page language.
///
/// Texts that take a value expect it already escaped (they are put into markup as they are).
enum ContinueText {
    private static let platform = PageLayout.platformName

    /// The heading and title.
    static func title(_ name: String) -> Localized {
        Localized("Continue as \(name)", zh: "以 \(name) 的身份继续")
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
    /// The primary button.
    static let continueButton = Localized("Continue", zh: "继续")
    /// The "Not you?" button.
    static let notYou = Localized("Not you? Sign in with another account", zh: "不是您？使用其他账户登录")
}
