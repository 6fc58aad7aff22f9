/// The words of "Download your data" and "Close your account", in every page language.
///
/// Texts that take a value expect it already escaped (they are put into markup as they are).
enum AccountCloseText {
    private static let platform = PageLayout.platformName

    /// The heading of the section on Your Account.
    static let sectionHeading = Localized("Your data and your account", zh: "您的数据和账户")
    /// Under it, before the download button.
    static let downloadHint = Localized(
        "One JSON file with your profile, the apps you allowed, your linked accounts, where you are signed in, "
            + "your passkeys and your recent sign-in activity. It holds no passwords, codes or keys.",
        zh: "一个 JSON 文件，包含您的个人资料、您允许的应用、关联的账户、登录设备、通行密钥以及近期的登录记录。不含任何密码、验证码或密钥。")
    /// The download button.
    static let download = Localized("Download your data", zh: "下载您的数据")
    /// The link to closing the account.
    static let close = Localized("Close your account", zh: "注销您的账户")
    /// Beside it.
    static let closeHint = Localized(
        "Closing your account deletes it and signs you out of every app. It cannot be undone.",
        zh: "注销账户会将其删除，并让您退出所有应用。此操作无法撤销。")

    /// The title of the close pages.
    static let title = Localized("Close your account", zh: "注销您的账户")
    /// What closing does, on both steps.
    static let effects = Localized(
        "Closing your \(platform) account:", zh: "注销您的 \(platform) 账户将会：")
    /// The list of effects.
    static let effectList = [
        Localized("signs you out everywhere and tells the apps you allowed;", zh: "让您在所有设备上退出登录，并通知您允许的应用；"),
        Localized(
            "takes away every app's access, your passkeys and two-step verification;",
            zh: "撤销所有应用的访问权限，删除您的通行密钥和两步验证；"),
        Localized("deletes your name, e-mail address and other details;", zh: "删除您的姓名、电子邮件地址和其他信息；"),
        Localized(
            "keeps only a security log that no longer names you.", zh: "仅保留一份不再包含您个人信息的安全日志。"),
    ]
    /// Before the password.
    static let passwordLead = Localized(
        "To continue, enter your password again.", zh: "如需继续，请再次输入您的密码。")
    /// The password field's label.
    static let password = Localized("Password", zh: "密码")
    /// No password typed.
    static let passwordMissing = Localized("Enter your password.", zh: "请输入您的密码。")
    /// A wrong password.
    static let passwordWrong = Localized("That password is not right.", zh: "密码不正确。")
    /// Above a form with errors.
    static let problem = Localized("Your account was not closed.", zh: "您的账户未被注销。")
    /// The button of the first step.
    static let continueButton = Localized("Continue", zh: "继续")
    /// Signing in again with a passkey instead.
    static let usePasskey = Localized(
        "Sign in again with a passkey instead", zh: "改为使用通行密钥重新登录")
    /// When the account has no password and the sign-in is not recent.
    static let passkeyLead = Localized(
        "To continue, sign in again with your passkey.", zh: "如需继续，请使用您的通行密钥重新登录。")
    /// Keep the account.
    static let keep = Localized("Keep my account", zh: "保留我的账户")

    /// The confirmation step's question.
    static let confirmLead = Localized(
        "This is the last step. Once closed, your account cannot be brought back.",
        zh: "这是最后一步。账户注销后将无法恢复。")
    /// The confirmation button.
    static let confirm = Localized("Close my account for good", zh: "永久注销我的账户")
    /// The confirmation step ran out of time.
    static let expired = Localized(
        "That took too long. Enter your password again to continue.", zh: "操作超时。请再次输入密码以继续。")

    /// The goodbye page's title.
    static let closedTitle = Localized("Your account is closed", zh: "您的账户已注销")
    /// The goodbye page.
    static let closedLead = Localized(
        "Your \(platform) account was closed and you are signed out. We sent a confirmation to your e-mail address.",
        zh: "您的 \(platform) 账户已注销，您已退出登录。我们已向您的电子邮件地址发送确认邮件。")
    /// Below it.
    static let closedHint = Localized(
        "Thank you for using \(platform). You can create a new account at any time.",
        zh: "感谢您使用 \(platform)。您可以随时创建新账户。")
    /// Back to the start.
    static let home = Localized("Go to the home page", zh: "前往首页")

    /// The confirmation mail's subject.
    static let mailSubject = Localized(
        "Your \(platform) account was closed", zh: "您的 \(platform) 账户已注销")
    /// The confirmation mail's body.
    static func mailBody(name: String, time: String) -> Localized {
        Localized(
            """
            Hello \(name),

            Your \(platform) account was closed on \(time). Your personal details, passkeys and app access \
            were deleted, and the apps you allowed were told.

            If you did not close it, reply to this message at once.
            """,
            zh: """
                \(name)，您好：

                您的 \(platform) 账户已于 \(time) 注销。您的个人信息、通行密钥和应用访问权限均已删除，并已通知您允许的应用。

                如果这不是您本人的操作，请立即回复此邮件。
                """)
    }
}
