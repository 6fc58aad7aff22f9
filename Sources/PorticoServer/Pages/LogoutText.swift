/// The words of the sign-out pages, in every page language.
///
/// Texts that take a value expect it already escaped (they are put into markup as they are).
enum LogoutText {
    private static let platform = PageLayout.platformName

    /// The confirmation's heading and title.
    static let confirmTitle = Localized("Sign out of \(platform)?", zh: "退出 \(platform)？")
    /// Who asked.
    static func asked(_ app: String?) -> Localized {
        guard let app else {
            return Localized(
                "You asked to sign out of \(platform) on this device.", zh: "您请求在此设备上退出 \(platform)。")
        }
        return Localized(
            "\(app) asked to sign you out of \(platform) on this device.",
            zh: "\(app) 请求让您在此设备上退出 \(platform)。")
    }
    /// Who is signed in (contains markup).
    static func signedInAs(name: String, email: String) -> Localized {
        Localized(
            "You are signed in as <strong>\(name)</strong> (\(email)).",
            zh: "您已登录为 <strong>\(name)</strong>（\(email)）。")
    }
    /// What signing out does.
    static let effect = Localized(
        "Signing out also ends “Keep me signed in” here. Apps you allowed keep their access.",
        zh: "退出后，此设备上的“保持登录状态”也将结束。您已允许的应用仍保留其访问权限。")
    /// The primary button.
    static let signOut = Localized("Sign out", zh: "退出")
    /// The secondary button.
    static let stay = Localized("Stay signed in", zh: "保持登录")
    /// The heading of the page after signing out.
    static let doneTitle = Localized("You are signed out", zh: "您已退出")
    /// What happened.
    static let done = Localized(
        "You signed out of \(platform) on this device.", zh: "您已在此设备上退出 \(platform)。")
    /// Where to go from here.
    static func returnTo(_ app: String) -> Localized {
        Localized("You can close this page or go back to \(app).", zh: "您可以关闭此页面或返回 \(app)。")
    }
    /// The link to sign in again (to Your Account).
    static let signInAgain = Localized("Sign in again", zh: "重新登录")
}
