/// The words of two-step verification: Your Account's section, the enrollment and management
/// pages, the second sign-in step, and the notice mail, in every page language.
///
/// Texts that take a value expect it already escaped when they go into markup (the mail is
/// plain text and takes values as they are).
enum TwoStepText {
    private static let platform = PageLayout.platformName

    /// The section's heading and the pages' title.
    static let title = Localized("Two-step verification", zh: "两步验证")
    /// The section's line when it is off.
    static let off = Localized(
        "Off. Add a code from an authenticator app to your password, so a stolen password is not enough.",
        zh: "未开启。在密码之外再输入身份验证器应用中的验证码，这样即使密码被盗也无法登录。")
    /// The section's line when it is on (`remaining` unused recovery codes).
    static func on(remaining: Int) -> Localized {
        Localized(
            "On: signing in asks for a code from your authenticator app. \(remaining) of 10 recovery codes left.",
            zh: "已开启：登录时需要输入身份验证器应用中的验证码。剩余恢复码 \(remaining) 个（共 10 个）。")
    }
    /// The link that starts enrollment.
    static let turnOn = Localized("Turn on two-step verification", zh: "开启两步验证")
    /// The link to the management page.
    static let manage = Localized("Manage two-step verification", zh: "管理两步验证")

    /// Enrollment: the first instruction.
    static let scanStep = Localized(
        "1. Scan this QR code with an authenticator app (Google Authenticator, Microsoft Authenticator, 1Password and others).",
        zh: "1. 使用身份验证器应用（Google 身份验证器、Microsoft Authenticator、1Password 等）扫描此二维码。")
    /// The QR code's accessible name.
    static let qrLabel = Localized(
        "QR code for your authenticator app; the same key is written below.",
        zh: "供身份验证器应用扫描的二维码；下方以文字形式给出同一密钥。")
    /// The text key's caption.
    static let typeKey = Localized(
        "Cannot scan? Enter this key in the app instead (time-based):",
        zh: "无法扫描？请在应用中手动输入此密钥（基于时间）：")
    /// Enrollment: the second instruction.
    static let confirmStep = Localized(
        "2. Enter the 6-digit code the app shows, to confirm it is set up.",
        zh: "2. 输入应用显示的 6 位验证码，以确认设置成功。")
    /// The code field's label.
    static let codeLabel = Localized("6-digit code", zh: "6 位验证码")
    /// The confirm button.
    static let confirm = Localized("Turn on", zh: "开启")
    /// The code is missing.
    static let codeMissing = Localized("Enter the 6-digit code from your app.", zh: "请输入应用中的 6 位验证码。")
    /// The code is wrong or used.
    static let codeWrong = Localized(
        "That code is not right, or it was used already. Enter the newest code from your app.",
        zh: "验证码不正确或已被使用。请输入应用中最新的验证码。")

    /// The recovery codes page: title.
    static let codesTitle = Localized("Save your recovery codes", zh: "保存您的恢复码")
    /// The recovery codes page: what they are.
    static let codesLead = Localized(
        "If you lose your phone, each of these codes signs you in once instead of a code from the app. They are shown only now: print them or keep them in a password manager.",
        zh: "如果您丢失了手机，每个恢复码都可以代替应用中的验证码登录一次。它们只显示这一次：请打印或保存在密码管理器中。")
    /// The recovery codes list's accessible name.
    static let codesListLabel = Localized("Recovery codes", zh: "恢复码")
    /// The recovery codes page: continue.
    static let saved = Localized("I saved them", zh: "我已保存")

    /// Management: new recovery codes.
    static let regenerateHeading = Localized("New recovery codes", zh: "新的恢复码")
    /// Management: new recovery codes, what it does.
    static let regenerateLead = Localized(
        "Makes 10 new recovery codes; the old ones stop working.", zh: "生成 10 个新的恢复码；旧的恢复码将失效。")
    /// Management: new recovery codes, the button.
    static let regenerate = Localized("Make new recovery codes", zh: "生成新的恢复码")
    /// Management: removal heading.
    static let removeHeading = Localized("Turn off", zh: "关闭")
    /// Management: removal, what it does.
    static let removeLead = Localized(
        "Signing in will ask for your password only. Every other browser is signed out.",
        zh: "登录时将只需要密码。其他所有浏览器都将退出登录。")
    /// Management: removal, the button.
    static let remove = Localized("Turn off two-step verification", zh: "关闭两步验证")
    /// Your Account's notice after enrollment.
    static let turnedOn = Localized("Two-step verification is on.", zh: "两步验证已开启。")
    /// Your Account's notice after removal.
    static let turnedOff = Localized(
        "Two-step verification is off, and every other browser has been signed out.",
        zh: "两步验证已关闭，其他所有浏览器均已退出登录。")

    /// Sign-in: the second step's lead.
    static let signInLead = Localized(
        "Enter the 6-digit code from your authenticator app.", zh: "请输入身份验证器应用中的 6 位验证码。")
    /// Sign-in: the continue button.
    static let verify = Localized("Verify", zh: "验证")
    /// Sign-in: the recovery code toggle.
    static let useRecoveryCode = Localized("Use a recovery code instead", zh: "改用恢复码")
    /// Sign-in: the recovery code field.
    static let recoveryCodeLabel = Localized("Recovery code", zh: "恢复码")
    /// Sign-in: the recovery code field's hint.
    static let recoveryCodeHint = Localized(
        "One of the 10 codes you saved, like abcde-fghij. Each works once.",
        zh: "您保存的 10 个恢复码之一，如 abcde-fghij。每个只能使用一次。")
    /// Sign-in: the recovery code is wrong or used.
    static let recoveryCodeWrong = Localized(
        "That recovery code is not right, or it was used already.", zh: "恢复码不正确或已被使用。")
    /// Sign-in: the half-done sign-in expired.
    static let expired = Localized(
        "That took too long. Sign in again.", zh: "操作超时。请重新登录。")

    /// Enrollment: the password field's lead.
    static let confirmPasswordStep = Localized(
        "3. Enter your password: turning this on changes how you sign in.",
        zh: "3. 输入您的密码：开启后登录方式将改变。")

    /// The mailed "turn it off" link's page: title.
    static let undoTitle = Localized("Turn off two-step verification?", zh: "关闭两步验证？")
    /// The mailed link's page: what it does.
    static let undoLead = Localized(
        "Use this if you did not turn it on yourself. Signing in will ask for your password only, and every browser is signed out. If someone else knew your password, reset it as well.",
        zh: "如果两步验证不是您本人开启的，请使用此操作。之后登录时将只需要密码，所有浏览器都将退出登录。如果有其他人知道您的密码，请同时重设密码。")
    /// The mailed link's page after it worked: title.
    static let undoneTitle = Localized("Two-step verification is off", zh: "两步验证已关闭")
    /// The mailed link's page after it worked.
    static let undone = Localized(
        "Two-step verification is off and every browser has been signed out. Sign in with your password, then turn it on again with your own authenticator app if you like.",
        zh: "两步验证已关闭，所有浏览器均已退出登录。请使用密码登录，如有需要，再用您自己的身份验证器应用重新开启。")
    /// The mailed link's pages: on to Your Account.
    static let undoneContinue = Localized("Go to Your Account", zh: "前往您的账户")
    /// The mailed link's page when the link is dead: title.
    static let undoDeadTitle = Localized("This link does not work", zh: "此链接无效")
    /// The mailed link's page when the link is dead.
    static let undoDead = Localized(
        "The link has expired, was used already, or two-step verification was turned off or set up again since. Sign in to manage it in Your Account.",
        zh: "链接已过期或已被使用，或者两步验证此后已被关闭或重新设置。请登录后在“您的账户”中管理。")

    /// The replay mail's subject.
    static let replaySubject = Localized(
        "A used sign-in code was tried on your account", zh: "有人尝试在您的账户上使用已用过的登录验证码")

    /// The replay mail's body (values as they are).
    static func replayNotice(name: String, time: String, passwordLink: String) -> Localized {
        Localized(
            """
            Hello \(name),

            Someone signed in to your \(platform) account with your password and then entered a
            code from your authenticator app that had already been used. It was refused.

            When: \(time)

            If you just signed in twice within a minute with the same code, there is nothing to
            do. If not, someone knows your password and saw one of your codes: change your
            password now and check the browsers and apps in Your Account:

            \(passwordLink)

            \(platform)
            """,
            zh: """
                \(name)，您好：

                有人使用您的密码登录 \(platform) 账户，随后输入了一个已被使用过的身份验证器应用验证码，已被拒绝。

                时间：\(time)

                如果您刚刚在一分钟内用同一个验证码登录了两次，则无需任何处理。否则，说明有人知道您的密码并看到了您的验证码：请立即更改密码，并在“您的账户”中检查浏览器和应用：

                \(passwordLink)

                \(platform)
                """)
    }

    /// The notice mail's subject.
    static func noticeSubject(enabled: Bool) -> Localized {
        enabled
            ? Localized("Two-step verification was turned on", zh: "两步验证已开启")
            : Localized("Two-step verification was turned off", zh: "两步验证已关闭")
    }

    /// The notice mail's body (values as they are).
    static func notice(name: String, time: String, enabled: Bool, accountLink: String, undoLink: String? = nil)
        -> Localized
    {
        let english =
            enabled
            ? "Two-step verification was turned on for your \(platform) account: signing in now asks for a code from an authenticator app."
            : "Two-step verification was turned off for your \(platform) account: signing in now asks for your password only."
        let chinese =
            enabled
            ? "您的 \(platform) 账户已开启两步验证：现在登录时需要输入身份验证器应用中的验证码。"
            : "您的 \(platform) 账户已关闭两步验证：现在登录时只需要密码。"
        return Localized(
            """
            Hello \(name),

            \(english)

            When: \(time)

            If this was you, there is nothing more to do. If it was not, change your password
            and check the browsers and apps in Your Account:

            \(accountLink)
            \(undoLink.map { "\nNot you? Turn it off with this link, even if you cannot sign in any more\n(it works for 7 days and signs out every browser):\n\n\($0)\n" } ?? "")
            \(platform)
            """,
            zh: """
                \(name)，您好：

                \(chinese)

                时间：\(time)

                如果这是您本人的操作，则无需任何处理。如果不是，请更改密码，并在“您的账户”中检查浏览器和应用：

                \(accountLink)
                \(undoLink.map { "\n不是您本人？即使您已无法登录，也可以通过此链接关闭两步验证（7 天内有效，所有浏览器都将退出登录）：\n\n\($0)\n" } ?? "")
                \(platform)
                """)
    }
}
