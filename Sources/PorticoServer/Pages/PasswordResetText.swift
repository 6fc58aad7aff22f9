/// The words of the forgot-password and reset-password pages and of the reset mail, in every
/// page language.
///
/// Texts that take a value expect it already escaped when they go into markup (the mail is
/// plain text and takes values as they are).
enum PasswordResetText {
    private static let platform = PageLayout.platformName

    /// The forgot page's title and heading.
    static let forgotTitle = Localized("Reset your password", zh: "重置密码")
    /// The forgot page's lead line.
    static let forgotLead = Localized(
        "Enter the email address of your account. We'll send you a link to choose a new password.",
        zh: "请输入您账户的电子邮件地址。我们会向您发送一个设置新密码的链接。")
    /// The e-mail field's label.
    static let email = Localized("Email", zh: "电子邮件")
    /// The forgot page's button.
    static let send = Localized("Send the link", zh: "发送链接")
    /// The link back to the sign-in page.
    static let backToSignIn = Localized("Back to sign in", zh: "返回登录")
    /// The alert's heading.
    static let problem = Localized("There was a problem", zh: "出现了问题")
    /// The answer page's title.
    static let sentTitle = Localized("Check your email", zh: "请查收电子邮件")
    /// The answer, the same whether or not there is an account (`email` escaped).
    static func sent(_ email: String) -> Localized {
        Localized(
            "If an account exists for \(email), we have sent it an email with a link to choose a new password.",
            zh: "如果 \(email) 有对应的账户，我们已向其发送一封包含设置新密码链接的电子邮件。")
    }
    /// The details under the answer.
    static func sentDetails(minutes: Int) -> Localized {
        Localized(
            "The link works once, within \(minutes) minutes. Nothing arrived? Check your spam folder, or ask again.",
            zh: "该链接只能使用一次，有效期 \(minutes) 分钟。没有收到？请检查垃圾邮件文件夹，或重新申请。")
    }
    /// The button to ask again.
    static let askAgain = Localized("Send another link", zh: "再发送一个链接")
    /// The reset form's title and heading.
    static let resetTitle = Localized("Choose a new password", zh: "设置新密码")
    /// The reset form's lead line (`email` escaped).
    static func resetLead(_ email: String) -> Localized {
        Localized("for your account \(email)", zh: "用于您的账户 \(email)")
    }
    /// The new password's label.
    static let newPassword = Localized("New password", zh: "新密码")
    /// The confirmation's label.
    static let confirmation = Localized("New password again", zh: "再次输入新密码")
    /// The show-passwords checkbox.
    static let showPasswords = Localized("Show passwords", zh: "显示密码")
    /// The reset form's button.
    static let save = Localized("Save the new password", zh: "保存新密码")
    /// The alert's text when fields have problems.
    static let fixBelow = Localized("Please correct the fields marked below.", zh: "请更正下方标出的字段。")
    /// The confirmation is missing.
    static let confirm = Localized("Type the new password again.", zh: "请再次输入新密码。")
    /// The two passwords differ.
    static let mismatch = Localized("The two passwords are not the same.", zh: "两次输入的密码不一致。")
    /// The page after the change.
    static let doneTitle = Localized("Your password has been changed", zh: "您的密码已更改")
    /// The text of that page.
    static let doneText = Localized(
        "For your safety we have signed you out everywhere, and apps you signed in to will ask you to sign in again.",
        zh: "为了您的安全，我们已在所有地方将您退出登录，您登录过的应用会要求您重新登录。")
    /// The sign-in button on that page.
    static let signInAgain = Localized("Sign in with your new password", zh: "使用新密码登录")
    /// The page for a link that no longer works.
    static let deadTitle = Localized("This link no longer works", zh: "此链接已失效")
    /// The text of that page.
    static func deadText(minutes: Int) -> Localized {
        Localized(
            "A reset link works once, within \(minutes) minutes of asking for it. Ask for a new one below.",
            zh: "重置链接只能使用一次，且须在申请后 \(minutes) 分钟内使用。请在下方申请新链接。")
    }
    /// The button on that page.
    static let newLink = Localized("Get a new link", zh: "获取新链接")
    /// The mail's subject.
    static let subject = Localized("Reset your \(platform) password", zh: "重置您的 \(platform) 密码")
    /// The mail's plain-text body (values as they are).
    static func mail(name: String, link: String, minutes: Int) -> Localized {
        Localized(
            """
            Hello \(name),

            Someone, hopefully you, asked to reset the password of your \(platform) account.
            To choose a new password, open this link within \(minutes) minutes:

            \(link)

            The link works once. If you did not ask for this, you can ignore this message:
            your password stays as it is.

            \(platform)
            """,
            zh: """
                \(name)，您好：

                有人（希望是您本人）申请重置您的 \(platform) 账户密码。
                请在 \(minutes) 分钟内打开以下链接设置新密码：

                \(link)

                该链接只能使用一次。如果这不是您的申请，请忽略此邮件，您的密码将保持不变。

                \(platform)
                """)
    }
}
