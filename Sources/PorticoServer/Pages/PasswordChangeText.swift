/// The words of Your Account's change-password page and of the notice mail sent after a
/// password is changed or reset, in every page language.
///
/// Texts that take a value expect it already escaped when they go into markup (the mail is
/// plain text and takes values as they are).
enum PasswordChangeText {
    private static let platform = PageLayout.platformName

    /// The page's title and heading.
    static let title = Localized("Change your password", zh: "更改密码")
    /// The lead line (`email` escaped).
    static func lead(_ email: String) -> Localized {
        Localized("for your account \(email)", zh: "用于您的账户 \(email)")
    }
    /// The current password's label.
    static let currentPassword = Localized("Current password", zh: "当前密码")
    /// The title for an account made with a passkey alone.
    static let setTitle = Localized("Set a password", zh: "设置密码")
    /// Its button.
    static let setSave = Localized("Set the password", zh: "设置密码")
    /// When its passkey sign-in is not recent.
    static let setNeedsSignIn = Localized(
        "Your account has no password yet. To set one, sign in again with your passkey first.",
        zh: "您的账户尚未设置密码。如需设置，请先使用您的通行密钥重新登录。")
    /// The link to sign in again.
    static let signInAgain = Localized("Sign in again", zh: "重新登录")
    /// What happens on saving.
    static let effect = Localized(
        "Saving signs you out in every other browser. Apps you allowed keep working; you can remove them in Your Account.",
        zh: "保存后，您将在其他所有浏览器中退出登录。您授权的应用将继续可用，您可以在“您的账户”中移除它们。")
    /// The button.
    static let save = Localized("Change the password", zh: "更改密码")
    /// The way back.
    static let cancel = Localized("Back to Your Account", zh: "返回您的账户")
    /// The link on Your Account.
    static let link = Localized("Change your password", zh: "更改密码")
    /// The current password is missing.
    static let currentMissing = Localized("Enter your current password.", zh: "请输入当前密码。")
    /// The current password is wrong.
    static let currentWrong = Localized("That is not your current password.", zh: "当前密码不正确。")
    /// The new password is the current one.
    static let unchanged = Localized(
        "Choose a password different from your current one.", zh: "请选择与当前密码不同的新密码。")
    /// Your Account's notice after the change.
    static let changed = Localized(
        "Your password has been changed, and every other browser has been signed out.",
        zh: "您的密码已更改，其他所有浏览器均已退出登录。")

    /// The notice mail's subject.
    static let noticeSubject = Localized(
        "Your \(platform) password was changed", zh: "您的 \(platform) 密码已更改")

    /// The notice mail's body (values as they are): `how` says whether it was changed while
    /// signed in or reset by a mailed link; `time` when.
    static func notice(name: String, time: String, byReset: Bool, accountLink: String, forgotLink: String)
        -> Localized
    {
        let englishHow =
            byReset
            ? "was reset with a link we e-mailed you. We have signed you out everywhere and apps you signed in to will ask you to sign in again."
            : "was changed while you were signed in. We have signed you out in every other browser."
        let chineseHow =
            byReset
            ? "已通过我们发送给您的邮件链接重置。我们已在所有地方将您退出登录，您登录过的应用会要求您重新登录。"
            : "已在您登录时更改。我们已在其他所有浏览器中将您退出登录。"
        return Localized(
            """
            Hello \(name),

            The password of your \(platform) account \(englishHow)

            When: \(time)

            If this was you, there is nothing more to do. If it was not, someone else knows
            your password or can read your e-mail: reset your password now at

            \(forgotLink)

            and check the apps and browsers in Your Account:

            \(accountLink)

            \(platform)
            """,
            zh: """
                \(name)，您好：

                您的 \(platform) 账户密码\(chineseHow)

                时间：\(time)

                如果这是您本人的操作，则无需任何处理。如果不是，说明他人知道您的密码或能读取您的电子邮件：
                请立即在以下地址重置密码：

                \(forgotLink)

                并在“您的账户”中检查应用和浏览器：

                \(accountLink)

                \(platform)
                """)
    }
}
