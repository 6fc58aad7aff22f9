/// The words of sign-up by e-mail confirmation: the "check your e-mail" answer, the page behind
/// the mailed link, its failures, and the two mails, in every page language.
///
/// Texts that take a value for a page expect it already escaped; the mails take values as they are.
enum SignupVerifyText {
    private static let platform = PageLayout.platformName

    /// The answer page's title, the same for every address.
    static let sentTitle = Localized("Check your email", zh: "请查收电子邮件")
    /// The answer (`email` escaped).
    static func sent(_ email: String) -> Localized {
        Localized(
            "We have sent a message to \(email). Open the link in it to finish creating your account.",
            zh: "我们已向 \(email) 发送一封邮件。请打开其中的链接以完成创建账户。")
    }
    /// The details under the answer.
    static func sentDetails(hours: Int) -> Localized {
        Localized(
            "The link works once, within \(hours) hours. If this address already has an account, the message "
                + "says how to sign in instead. Nothing arrived? Check your spam folder, or start again.",
            zh: "该链接只能使用一次，有效期 \(hours) 小时。如果此地址已有账户，邮件会说明如何登录。"
                + "没有收到？请检查垃圾邮件文件夹，或重新开始。")
    }
    /// The button to start again.
    static let startAgain = Localized("Start again", zh: "重新开始")
    /// The sign-in link.
    static let backToSignIn = Localized("Back to sign in", zh: "返回登录")

    /// The confirmation page's title and heading.
    static let confirmTitle = Localized("Finish creating your account", zh: "完成创建账户")
    /// The confirmation page's lead (`name`, `email` escaped).
    static func confirmLead(name: String, email: String) -> Localized {
        Localized(
            "Create the \(platform) account \(email) for \(name)?",
            zh: "为 \(name) 创建 \(platform) 账户 \(email)？")
    }
    /// The button that creates the account.
    static let confirm = Localized("Create my account", zh: "创建我的账户")

    /// The title of the page for a link that no longer works.
    static let deadTitle = Localized("This link no longer works", zh: "此链接已失效")
    /// Its text.
    static func deadText(hours: Int) -> Localized {
        Localized(
            "A link to finish creating an account works once, within \(hours) hours, and only the newest one "
                + "sent to an address works. Start again to get a new one.",
            zh: "完成创建账户的链接只能使用一次，有效期 \(hours) 小时，并且只有发往该地址的最新链接有效。请重新开始以获取新链接。")
    }

    /// The title of the page when the address got an account meanwhile.
    static let takenTitle = Localized("This address already has an account", zh: "此地址已有账户")
    /// Its text (`email` escaped).
    static func takenText(_ email: String) -> Localized {
        Localized(
            "An account for \(email) was created in the meantime, so no second one was made. Sign in, or reset "
                + "its password if you do not know it.",
            zh: "在此期间已为 \(email) 创建了账户，因此没有再创建第二个。请登录；如果您不知道密码，请重置密码。")
    }
    /// The sign-in button.
    static let signIn = Localized("Sign in", zh: "登录")
    /// The reset button.
    static let resetPassword = Localized("Reset the password", zh: "重置密码")

    /// The confirmation mail's subject.
    static let linkSubject = Localized("Finish creating your \(platform) account", zh: "完成创建您的 \(platform) 账户")
    /// The confirmation mail's body.
    static func linkMail(name: String, email: String, link: String, hours: Int) -> Localized {
        Localized(
            """
            Hello \(name),

            To finish creating your \(platform) account for \(email), open this link within \(hours) hours:

            \(link)

            The link works once. If you did not ask for an account, ignore this message: none is created.

            \(platform)
            """,
            zh: """
                \(name)，您好：

                要完成为 \(email) 创建 \(platform) 账户，请在 \(hours) 小时内打开以下链接：

                \(link)

                该链接只能使用一次。如果您没有申请账户，请忽略此邮件，不会创建任何账户。

                \(platform)
                """)
    }

    /// The subject of the mail to an address that already has an account.
    static let noticeSubject = Localized(
        "Someone tried to create a \(platform) account with your address", zh: "有人尝试用您的地址创建 \(platform) 账户")
    /// Its body.
    static func noticeMail(name: String, email: String, loginLink: String, forgotLink: String) -> Localized {
        Localized(
            """
            Hello \(name),

            Someone tried to create a \(platform) account with this address (\(email)), which already has one.
            No account was created and nothing about yours has changed.

            If it was you, sign in: \(loginLink)
            Forgot your password? Reset it: \(forgotLink)

            If it was not you, you can ignore this message.

            \(platform)
            """,
            zh: """
                \(name)，您好：

                有人尝试用此地址（\(email)）创建 \(platform) 账户，但该地址已有账户。
                没有创建新账户，您的账户也没有任何变化。

                如果是您本人，请登录：\(loginLink)
                忘记密码？请重置：\(forgotLink)

                如果不是您本人，请忽略此邮件。

                \(platform)
                """)
    }
}
