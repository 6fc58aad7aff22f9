/// The words of Your Account, in every page language.
///
/// Texts that take a value expect it already escaped (they are put into markup as they are).
enum AccountText {
    private static let platform = PageLayout.platformName

    /// The heading and title.
    static let title = LayoutText.yourAccount
    /// The apps section.
    static let appsHeading = Localized("Apps you allowed", zh: "您已允许的应用")
    /// When there are none.
    static let noApps = Localized(
        "You have not allowed any app to use your \(platform) account.", zh: "您尚未允许任何应用使用您的 \(platform) 账户。")
    /// Above the list.
    static let appsIntro = Localized(
        "These apps can sign you in with \(platform) and see what is listed. Removing one takes its access away; "
            + "it asks you again the next time you use it.",
        zh: "这些应用可以通过 \(platform) 让您登录，并查看所列信息。移除后它将失去访问权限；下次使用时会再次征求您的同意。")
    /// When the app was allowed.
    static func allowed(first: String, last: String) -> Localized {
        if first == last { return Localized("Allowed \(first)", zh: "允许于 \(first)") }
        return Localized("First allowed \(first) · last \(last)", zh: "首次允许于 \(first) · 最近一次 \(last)")
    }
    /// Above the permissions.
    static let mayLabel = Localized("It may:", zh: "它可以：")
    /// The remove button.
    static let remove = Localized("Remove", zh: "移除")
    /// The remove button's accessible name.
    static func removeApp(_ app: String) -> Localized { Localized("Remove \(app)", zh: "移除 \(app)") }
    /// The sessions section.
    static let devicesHeading = Localized("Where you are signed in", zh: "您的登录设备")
    /// The heading of the password section.
    static let securityHeading = Localized("Password", zh: "密码")
    /// The current session's badge.
    static let thisDevice = Localized("This device", zh: "此设备")
    /// A persistent session.
    static let kept = Localized("Kept signed in", zh: "保持登录")
    /// When a session began.
    static func signedIn(_ when: String) -> Localized { Localized("Signed in \(when)", zh: "登录于 \(when)") }
    /// When a session was last used.
    static func lastSeen(_ when: String) -> Localized { Localized("last seen \(when)", zh: "最近活动 \(when)") }
    /// A session without a recorded address.
    static let unknownAddress = Localized("unknown address", zh: "未知地址")
    /// The button that ends another session.
    static let signOutThat = Localized("Sign out", zh: "退出")
    /// Its accessible name.
    static func signOutDevice(_ device: String) -> Localized {
        Localized("Sign out \(device)", zh: "退出 \(device)")
    }
    /// The button that ends every other session.
    static let signOutOthers = Localized("Sign out everywhere else", zh: "退出所有其他设备")
    /// The button that ends this session.
    static let signOut = Localized("Sign out", zh: "退出")
    /// After removing an app.
    static let removed = Localized(
        "The app was removed. It can no longer see your information.", zh: "该应用已移除，无法再查看您的信息。")
    /// After ending another session.
    static let signedOutOne = Localized("That device was signed out.", zh: "该设备已退出登录。")
    /// After ending every other session.
    static let signedOutOthers = Localized("Every other device was signed out.", zh: "所有其他设备均已退出登录。")
    /// The top corner.
    static let signedInAs = Localized("Signed in as", zh: "已登录为")
}
