/// The words of the create-account pages, in every page language.
///
/// Texts that take a value expect it already escaped (they are put into markup as they are).
enum SignupText {
    private static let platform = PageLayout.platformName

    /// The page title and heading.
    static let title = Localized("Create account", zh: "创建账户")
    /// The lead line when an app asked: "to continue to <app>".
    static func toContinueTo(_ app: String) -> Localized {
        Localized("to continue to \(app)", zh: "以继续使用 \(app)")
    }
    /// The lead line without an app.
    static let forPlatform = Localized(
        "for \(platform) and the apps you use with it", zh: "用于 \(platform) 以及您通过它使用的应用")
    /// The name field's label.
    static let name = Localized("Your name", zh: "您的姓名")
    /// The e-mail field's label.
    static let email = Localized("Email", zh: "电子邮件")
    /// The password field's label.
    static let password = Localized("Password", zh: "密码")
    /// The show-password checkbox.
    static let showPassword = Localized("Show password", zh: "显示密码")
    /// The postal-code field's label.
    static let postalCode = Localized("Postal code (optional)", zh: "邮政编码（可选）")
    /// The note under the postal code.
    static let postalHint = Localized(
        "Apps you allow to see it can use it for delivery or local offers.", zh: "您允许查看它的应用可将其用于配送或本地优惠。")
    /// The submit button.
    static let submit = Localized("Create your account", zh: "创建您的账户")
    /// The divider above the sign-in link.
    static let haveAccount = Localized("Already have an account?", zh: "已有账户？")
    /// The sign-in link.
    static let signIn = Localized("Sign in", zh: "登录")
    /// The agreement line under the form (contains links).
    static let agreement = Localized(
        #"By creating an account you agree to the <a href="/terms">Conditions of Use</a> and the "#
            + #"<a href="/privacy">Privacy Notice</a>."#,
        zh: #"创建账户即表示您同意<a href="/terms">使用条件</a>和<a href="/privacy">隐私声明</a>。"#)
    /// The alert's heading when fields have problems.
    static let problem = Localized("There was a problem", zh: "出现了问题")
    /// The alert's text when fields have problems.
    static let fixBelow = Localized("Please correct the fields marked below.", zh: "请更正下方标出的字段。")
    /// The name is missing.
    static let nameMissing = Localized("Enter your name.", zh: "请输入您的姓名。")
    /// The name is too long.
    static let nameTooLong = Localized("Use at most 200 characters.", zh: "最多 200 个字符。")
    /// The name has control characters.
    static let nameInvalid = Localized("Use letters, spaces and punctuation only.", zh: "只能使用字母、空格和标点。")
    /// The e-mail address is missing.
    static let emailMissing = Localized("Enter your email address.", zh: "请输入您的电子邮件地址。")
    /// The e-mail address does not look like one.
    static let emailInvalid = Localized(
        "Enter an email address like name@example.com.", zh: "请输入类似 name@example.com 的电子邮件地址。")
    /// The postal code is too long.
    static let postalTooLong = Localized("Use at most 20 characters.", zh: "最多 20 个字符。")
    /// The postal code has other characters.
    static let postalInvalid = Localized(
        "Use only letters, digits, spaces and hyphens.", zh: "只能使用字母、数字、空格和连字符。")
    /// The password is missing.
    static let passwordMissing = Localized("Choose a password.", zh: "请设置密码。")
    /// The page after an account was made, without an app to go back to.
    static let readyTitle = Localized("Your account is ready", zh: "您的账户已准备就绪")
    /// The text of that page (`name` and `email` escaped).
    static func readyText(name: String, email: String) -> Localized {
        Localized(
            "Welcome, \(name). You are signed in as \(email) and can now use Login with \(platform) with apps "
                + "that offer it.",
            zh: "欢迎，\(name)。您已以 \(email) 登录，现在可以在提供“通过 \(platform) 登录”的应用中使用它。")
    }
    /// The button on that page.
    static let manage = Localized("Go to Your Account", zh: "前往您的账户")
}
