/// The words of the sign-in page, in every page language.
///
/// Texts that take a value expect it already escaped (they are put into markup as they are).
enum LoginText {
    private static let platform = PageLayout.platformName

    /// The page title and heading.
    static let title = Localized("Sign in", zh: "登录")
    /// The lead line when an app asked: "to continue to <app>".
    static func toContinueTo(_ app: String) -> Localized {
        Localized("to continue to \(app)", zh: "以继续使用 \(app)")
    }
    /// The lead line without an app.
    static let withYourAccount = Localized("with your \(platform) account", zh: "使用您的 \(platform) 账户")
    /// The e-mail field's label.
    static let email = Localized("Email", zh: "电子邮件")
    /// The password field's label.
    static let password = Localized("Password", zh: "密码")
    /// The show-password checkbox.
    static let showPassword = Localized("Show password", zh: "显示密码")
    /// The submit button.
    static let signIn = Localized("Sign in", zh: "登录")
    /// The remember-me checkbox.
    static let keepMeSignedIn = Localized("Keep me signed in", zh: "保持登录状态")
    /// The note under the remember-me checkbox.
    static let keepMeSignedInHint = Localized(
        "Only on a device you trust. You will stay signed in for 30 days.",
        zh: "仅在您信任的设备上使用。您将保持登录 30 天。")
    /// The forgot-password link.
    static let forgotPassword = Localized("Forgot your password?", zh: "忘记密码？")
    /// The divider above "Create a new account".
    static let newHere = Localized("New to \(platform)?", zh: "初次使用 \(platform)？")
    /// The sign-up link.
    static let createAccount = Localized("Create a new account", zh: "创建新账户")
    /// The disclosure's summary.
    static let whatIsThis = Localized("What is this?", zh: "这是什么？")
    /// Stands in for the app's name when there is no app.
    static let thisApp = Localized("This app", zh: "此应用")
    /// The disclosure's text about `app` (escaped).
    static func whatIsThisAnswer(_ app: String) -> Localized {
        Localized(
            "\(app) uses Login with \(platform) so you can sign in with the account you already have, without a "
                + "new password. You decide what it may see; \(platform) never shares your password.",
            zh: "\(app) 使用“通过 \(platform) 登录”，您可以用已有的账户登录，无需新密码。"
                + "由您决定它能看到什么；\(platform) 绝不会分享您的密码。")
    }
    /// The learn-more link.
    static let learnMore = Localized("Learn more", zh: "了解更多")
    /// The agreement line under the form (contains links).
    static let agreement = Localized(
        #"By signing in you agree to the <a href="/terms">Conditions of Use</a> and the "#
            + #"<a href="/privacy">Privacy Notice</a>."#,
        zh: #"登录即表示您同意<a href="/terms">使用条件</a>和<a href="/privacy">隐私声明</a>。"#)
    /// Both fields are needed.
    static let missingFields = Localized("Enter your email and password", zh: "请输入您的电子邮件和密码")
    /// The message for a wrong e-mail address or password: the same for both, so the page does
    /// not tell who has an account.
    static let wrongCredentials = Localized("Your email or password is incorrect", zh: "您的电子邮件或密码不正确")
}
