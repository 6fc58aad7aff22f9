/// The words of the developer console, in every page language.
///
/// Texts that take a value expect it already escaped (they are put into markup as they are).
/// Validation errors are not here: they are the command line's words (``AdminError``), shown
/// as they are, so the console, `portico client add` and `POST /oauth/register` say the same.
enum DeveloperText {
    private static let platform = PageLayout.platformName

    /// The console's title.
    static let title = Localized("Developer console", zh: "开发者控制台")
    /// The terms heading.
    static let termsHeading = Localized("Developer terms", zh: "开发者条款")
    /// The terms themselves, short.
    static let terms = Localized(
        "To let people sign in to your app with \(platform), you agree to: ask only for what your app needs; "
            + "say in a privacy policy what you do with it; keep your app's secret secret; and not sell people's "
            + "information. The operator may suspend an app that breaks these terms.",
        zh: "若要让用户通过 \(platform) 登录您的应用，您同意：只请求应用所需的信息；在隐私政策中说明如何使用这些信息；"
            + "妥善保管应用密钥；不出售用户信息。运营方可以暂停违反这些条款的应用。")
    /// The checkbox.
    static let acceptTerms = Localized("I accept the developer terms", zh: "我接受开发者条款")
    /// When it was not ticked.
    static let mustAccept = Localized(
        "Tick the box to accept the developer terms.", zh: "请勾选此框以接受开发者条款。")
    /// The button.
    static let continueButton = Localized("Continue", zh: "继续")
    /// The list heading.
    static let yourApps = Localized("Your apps", zh: "您的应用")
    /// When there are none.
    static let noApps = Localized("You have no apps yet.", zh: "您还没有应用。")
    /// The link to make one.
    static let newApp = Localized("Register a new app", zh: "注册新应用")
    /// The new-app page's title.
    static let newAppTitle = Localized("Register an app", zh: "注册应用")
    /// Field labels.
    static let name = Localized("App name", zh: "应用名称")
    static let appType = Localized("Kind of app", zh: "应用类型")
    static let webType = Localized("Web app with a server (gets a secret)", zh: "带服务器的网页应用（获得密钥）")
    static let nativeType = Localized("Phone or desktop app (no secret)", zh: "手机或桌面应用（无密钥）")
    static let deviceType = Localized("TV or device without a browser (no secret)", zh: "电视或无浏览器的设备（无密钥）")
    static let redirectURIs = Localized("Redirect URIs, one per line", zh: "重定向 URI，每行一个")
    static let redirectHint = Localized(
        "Exactly where people come back after signing in, such as https://app.example/callback.",
        zh: "用户登录后返回的确切地址，例如 https://app.example/callback。")
    static let webOrigins = Localized("Web origins, one per line", zh: "网页来源，每行一个")
    static let webOriginsHint = Localized(
        "Where your pages call from, such as https://app.example (optional).",
        zh: "您的网页发起调用的来源，例如 https://app.example（可选）。")
    static let scopesLegend = Localized("What the app will ask people for", zh: "应用将向用户请求的权限")
    static let jwks = Localized("Public keys, as a JWKS (optional, web apps)", zh: "公钥，JWKS 格式（可选，网页应用）")
    static let jwksHint = Localized(
        "Paste your app's JSON Web Key Set to sign in with private_key_jwt instead of a secret.",
        zh: "粘贴应用的 JSON Web Key Set，以 private_key_jwt 代替密钥进行身份验证。")
    static let backchannelLogoutURI = Localized(
        "Back-channel logout URI (optional)", zh: "后端通道登出 URI（可选）")
    static let sharedSignals = Localized(
        "Send this app Shared Signals (security events about the people who allowed it; web apps)",
        zh: "向此应用发送共享信号（关于已允许它的用户的安全事件；网页应用）")
    static let logoURL = Localized("Logo URL (optional)", zh: "徽标 URL（可选）")
    static let privacyURL = Localized("Privacy policy URL (optional)", zh: "隐私政策 URL（可选）")
    static let termsURL = Localized("Terms of service URL (optional)", zh: "服务条款 URL（可选）")
    /// The create button.
    static let create = Localized("Register app", zh: "注册应用")
    /// The save button.
    static let save = Localized("Save changes", zh: "保存更改")
    /// Above the first error.
    static let fixErrors = Localized("Please fix this:", zh: "请修正：")
    /// Labels of the app page.
    static let clientID = Localized("Client ID", zh: "客户端 ID")
    static let clientSecret = Localized("Client secret", zh: "客户端密钥")
    static let secretOnce = Localized(
        "Copy it now: it is shown only this once. Only a hash of it is kept.",
        zh: "请立即复制：它只显示这一次。系统只保存其哈希值。")
    static let publicApp = Localized(
        "This app has no secret: it proves itself with PKCE.", zh: "此应用没有密钥：它使用 PKCE 证明身份。")
    static func people(_ count: Int) -> Localized {
        count == 1
            ? Localized("1 person has allowed this app.", zh: "已有 1 人允许此应用。")
            : Localized("\(count) people have allowed this app.", zh: "已有 \(count) 人允许此应用。")
    }
    static let signInChartHeading = Localized("Sign-ins, last 30 days", zh: "近 30 天的登录")
    static func signInTotal(_ total: Int) -> Localized {
        total == 1
            ? Localized("1 sign-in in the last 30 days.", zh: "近 30 天共登录 1 次。")
            : Localized("\(total) sign-ins in the last 30 days.", zh: "近 30 天共登录 \(total) 次。")
    }
    static func signInChartLabel(total: Int, most: Int) -> Localized {
        Localized(
            "Sign-ins per day over the last 30 days: \(total) in all, at most \(most) on one day.",
            zh: "近 30 天每天的登录次数：共 \(total) 次，单日最多 \(most) 次。")
    }
    static func signInBar(day: String, count: Int) -> Localized {
        Localized("\(day): \(count) sign-in\(count == 1 ? "" : "s")", zh: "\(day)：登录 \(count) 次")
    }
    static let verified = Localized("Verified by the operator.", zh: "已经运营方验证。")
    static let unverified = Localized(
        "Not verified yet: its consent page warns people, and at most 100 different people can allow it until "
            + "the operator verifies it.",
        zh: "尚未验证：其授权页面会向用户显示警告，在运营方验证之前最多只能有 100 位不同的用户允许它。")
    static func suspended(_ when: String) -> Localized {
        Localized(
            "Suspended by the operator since \(when): it signs nobody in and its tokens are refused.",
            zh: "自 \(when) 起已被运营方暂停：它无法让任何人登录，其令牌也会被拒绝。")
    }
    static let statusHeading = Localized("Status", zh: "状态")
    static let previewHeading = Localized("Consent page preview", zh: "授权页面预览")
    static let previewEnglish = Localized("Preview in English", zh: "英文预览")
    static let previewChinese = Localized("Preview in Simplified Chinese", zh: "简体中文预览")
    static let settingsHeading = Localized("Settings", zh: "设置")
    static let secretHeading = Localized("Secret", zh: "密钥")
    static let rotate = Localized("Make a new secret", zh: "生成新密钥")
    static let rotateHint = Localized(
        "The current secret keeps working for 24 hours, so your servers can change over.",
        zh: "当前密钥将继续有效 24 小时，以便您的服务器完成切换。")
    static let previousUntil = Localized("The previous secret works until", zh: "旧密钥有效期至")
    static let dangerHeading = Localized("Delete", zh: "删除")
    static let delete = Localized("Delete this app", zh: "删除此应用")
    static let deleteHint = Localized(
        "Everyone signed in with it is signed out, and its tokens stop working.",
        zh: "所有通过它登录的人都将被退出，其令牌也将失效。")
    static func confirmDelete(_ app: String) -> Localized {
        Localized("Delete \(app)?", zh: "删除 \(app)？")
    }
    static let confirmDeleteText = Localized(
        "This cannot be undone. Every token issued to the app is revoked.", zh: "此操作无法撤销。颁发给该应用的所有令牌都将被撤销。")
    static let confirmDeleteButton = Localized("Yes, delete it", zh: "是的，删除")
    static let cancel = Localized("Cancel", zh: "取消")
    static let saved = Localized("Your changes were saved.", zh: "您的更改已保存。")
    static let deleted = Localized("The app was deleted.", zh: "该应用已删除。")
    static let rotated = Localized("A new secret was made.", zh: "已生成新密钥。")
    static let owner = Localized("Owner", zh: "所有者")
    static let codeveloper = Localized("Co-developer", zh: "协作开发者")
    static let back = Localized("All your apps", zh: "您的所有应用")
    static let notFound = Localized("There is no such app.", zh: "没有这个应用。")
    static let typeLabel = Localized("Kind", zh: "类型")
    static let developersHeading = Localized("Co-developers", zh: "协作开发者")
    static let developersHint = Localized(
        "Co-developers can change the settings; only you can make a new secret or delete the app.",
        zh: "协作开发者可以更改设置；只有您可以生成新密钥或删除应用。")
    static let noDevelopers = Localized("No co-developers yet.", zh: "还没有协作开发者。")
    static let developerEmail = Localized("E-mail address of their account", zh: "对方账户的电子邮件地址")
    static let addDeveloper = Localized("Add co-developer", zh: "添加协作开发者")
    static func removeDeveloper(_ who: String) -> Localized { Localized("Remove \(who)", zh: "移除 \(who)") }
    static let remove = Localized("Remove", zh: "移除")
    static let noSuchAccount = Localized(
        "There is no other account with that e-mail address.", zh: "没有使用该电子邮件地址的其他账户。")
    static let developerAdded = Localized("The co-developer was added.", zh: "已添加协作开发者。")
    static let developerRemoved = Localized("The co-developer was removed.", zh: "已移除协作开发者。")
    static let operatorTitle = Localized("Every app", zh: "所有应用")
    static let operatorIntro = Localized(
        "Newest first. Suspend, resume or verify an app with portico client suspend | resume | verify ID.",
        zh: "最新的在前。使用 portico client suspend | resume | verify ID 暂停、恢复或验证应用。")
    static let ownerColumn = Localized("Owner", zh: "所有者")
    static let operatorAdded = Localized("added by the operator", zh: "由运营方添加")
    static let peopleColumn = Localized("People", zh: "用户数")
    static let verifiedColumn = Localized("Verified", zh: "已验证")
    static let suspendedColumn = Localized("Suspended", zh: "已暂停")
    static let appColumn = Localized("App", zh: "应用")
    static let yes = Localized("yes", zh: "是")
    static let no = Localized("no", zh: "否")
}
