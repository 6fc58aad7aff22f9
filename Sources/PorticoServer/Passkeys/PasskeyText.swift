/// The passkey texts of the sign-in and Your Account pages, in English and Simplified Chinese.
enum PasskeyText {
    static let signIn = Localized("Sign in with a passkey", zh: "使用通行密钥登录")
    static let or = Localized("or", zh: "或")
    static let refused = Localized(
        "That passkey could not sign you in. Try again, or use your password.",
        zh: "无法使用该通行密钥登录。请重试，或使用您的密码。")
    static let section = Localized("Passkeys", zh: "通行密钥")
    static let sectionHint = Localized(
        "Sign in with your fingerprint, face or screen lock instead of a password. Passkeys cannot be phished.",
        zh: "使用指纹、面容或屏幕锁定代替密码登录。通行密钥无法被钓鱼窃取。")
    static let add = Localized("Add a passkey", zh: "添加通行密钥")
    static let none = Localized("You have no passkeys yet.", zh: "您还没有通行密钥。")
    static let added = Localized("Added", zh: "添加于")
    static let lastUsed = Localized("Last used", zh: "上次使用")
    static let never = Localized("never", zh: "从未")
    static let synced = Localized("Synced", zh: "已同步")
    static let thisDevice = Localized("This device only", zh: "仅限此设备")
    static let defaultName = Localized("Passkey", zh: "通行密钥")
    static let addRefused = Localized(
        "The passkey could not be added. Try again.", zh: "无法添加该通行密钥。请重试。")
    static let reauthenticate = Localized(
        "For your security, sign in again before adding a passkey.", zh: "为了您的安全，添加通行密钥前请重新登录。")
}

extension PasskeyText {
    static let rename = Localized("Rename", zh: "重命名")
    static let nameLabel = Localized("Name", zh: "名称")
    static let remove = Localized("Remove", zh: "移除")
    static let lastMethod = Localized(
        "This passkey is the only way left to sign in to your account, so it cannot be removed.",
        zh: "此通行密钥是您登录账户的唯一方式，因此无法移除。")
    static let addedSubject = Localized("A passkey was added to your account", zh: "您的账户已添加通行密钥")
    static let removedSubject = Localized("A passkey was removed from your account", zh: "您的账户已移除通行密钥")

    static func addedBody(name: String, passkey: String, time: String, link: String) -> Localized {
        Localized(
            """
            Hello \(name),

            The passkey "\(passkey)" was added to your account on \(time). It can now sign you in.

            If this was not you, remove it and change your password: \(link)
            """,
            zh: """
                \(name)，您好：

                通行密钥"\(passkey)"已于 \(time) 添加到您的账户，现在可以用它登录。

                如果这不是您本人的操作，请移除它并更改密码：\(link)
                """)
    }

    static func removedBody(name: String, passkey: String, time: String, link: String) -> Localized {
        Localized(
            """
            Hello \(name),

            The passkey "\(passkey)" was removed from your account on \(time). It can no longer sign you in.

            If this was not you, change your password: \(link)
            """,
            zh: """
                \(name)，您好：

                通行密钥"\(passkey)"已于 \(time) 从您的账户移除，不能再用它登录。

                如果这不是您本人的操作，请更改密码：\(link)
                """)
    }
}

/// The texts of signing up with a passkey and no password.
extension PasskeyText {
    static let signUpInstead = Localized(
        "Create the account with a passkey instead", zh: "改用通行密钥创建账户")
    static let signUpHint = Localized(
        "No password: you will sign in with your fingerprint, face or screen lock. Leave the password empty.",
        zh: "无需密码：您将使用指纹、面容或屏幕锁定登录。请将密码留空。")
    static let signUpLead = Localized(
        "You chose to sign in with a passkey instead of a password. Create it now to finish.",
        zh: "您选择了使用通行密钥代替密码登录。现在创建通行密钥即可完成。")
    static let create = Localized("Create my passkey and account", zh: "创建通行密钥和账户")
    static let unsupported = Localized(
        "This browser cannot create passkeys. Open the link in a browser that can, or start again and choose a password.",
        zh: "此浏览器无法创建通行密钥。请在支持通行密钥的浏览器中打开此链接，或重新开始并设置密码。")
    static let signUpRefused = Localized(
        "The passkey could not be created. Try again.", zh: "无法创建该通行密钥。请重试。")
}
