/// The words of the device login pages (`/device`), in every page language.
///
/// Texts that take a value expect it already escaped (they are put into markup as they are).
enum DeviceText {
    private static let platform = PageLayout.platformName

    /// The code-entry page's title and heading.
    static let entryTitle = Localized("Connect a TV or device", zh: "连接电视或设备")
    /// The line under it.
    static let entryLead = Localized(
        "Enter the code shown on your TV, console or other device.", zh: "请输入电视、游戏机或其他设备上显示的代码。")
    /// The code field's label.
    static let codeLabel = Localized("Code", zh: "代码")
    /// The hint under the field.
    static let codeHelp = Localized(
        "8 letters, for example BCDF-GHJK. Upper or lower case, with or without the dash.",
        zh: "8 个字母，例如 BCDF-GHJK。大小写均可，可带或不带连字符。")
    /// The submit button.
    static let continueButton = Localized("Continue", zh: "继续")
    /// The disclosure's summary.
    static let whatIsThis = Localized("What is this?", zh: "这是什么？")
    /// The disclosure's text.
    static let explanation = Localized(
        "Devices that are hard to type on let you sign in here instead: the device shows a short code, you enter "
            + "it on this page, sign in with your \(platform) account and choose whether to allow it.",
        zh: "不便输入的设备可以让您在这里登录：设备上会显示一个简短的代码，您在此页面输入该代码，用您的 \(platform) "
            + "账户登录，然后决定是否允许。")

    /// Under the app's name on the consent page.
    static let wantsToConnect = Localized(
        "wants to use your \(platform) account on your TV or device", zh: "想要在您的电视或设备上使用您的 \(platform) 账户")
    /// The consent page's title and heading (`app` escaped).
    static func consentTitle(_ app: String) -> Localized {
        Localized("Allow \(app) on your TV or device?", zh: "允许 \(app) 在您的电视或设备上使用？")
    }
    /// Above the code on the consent page.
    static let codeShown = Localized("Code on your device", zh: "您设备上的代码")
    /// The warning against codes sent by someone else (RFC 8628 §5.4).
    static let compareCode = Localized(
        "Only continue if this is the code shown on your own device. If someone sent you this code, choose Cancel.",
        zh: "只有当这是您自己设备上显示的代码时才继续。如果这个代码是别人发给您的，请选择“取消”。")
    /// The warning's heading when the device asks to become the companion (`app` escaped).
    static func companionWarningTitle(_ app: String) -> Localized {
        Localized(
            "This signs \(app) in as you everywhere on that device",
            zh: "这会让 \(app) 在那台设备上的所有地方以您的身份登录")
    }
    /// The warning's text: a phished code would hand over every app's sign-in, not one app's.
    static let companionWarning = Localized(
        "Every app on that device will be able to sign in as you without your password, only asking for your "
            + "permission there. Only continue if you started this yourself, on your own device, just now. If anyone "
            + "asked you to enter this code, choose Cancel.",
        zh: "那台设备上的每个应用都可以不用密码以您的身份登录，只需在那里征得您的许可。只有当这是您自己刚刚在您自己的设备上发起的，"
            + "才继续。如果有人让您输入这个代码，请选择“取消”。")
    /// The heading of the permissions (`app` escaped).
    static func permissionsIntro(_ app: String) -> Localized {
        Localized("\(app) will be able to:", zh: "\(app) 将能够：")
    }
    /// The allow button.
    static let allow = Localized("Allow", zh: "允许")
    /// The deny button.
    static let cancel = Localized("Cancel", zh: "取消")
    /// Where the device can be disconnected later (contains a link).
    static let disconnectAnyTime = Localized(
        #"You can disconnect the device at any time in <a href="/account">Your Account</a>."#,
        zh: #"您可以随时在<a href="/account">您的账户</a>中断开此设备。"#)

    /// The result page after Allow.
    static let connectedTitle = Localized("Your device is connected", zh: "您的设备已连接")
    /// Its message (`app` escaped).
    static func connectedMessage(_ app: String) -> Localized {
        Localized(
            "\(app) is now signed in with your \(platform) account on your TV or device. "
                + "Go back to your device: it continues by itself in a few seconds.",
            zh: "\(app) 已在您的电视或设备上使用您的 \(platform) 账户登录。请回到您的设备：几秒钟后它会自动继续。")
    }
    /// The result page after Cancel.
    static let deniedTitle = Localized("The device was not connected", zh: "设备未连接")
    /// Its message (`app` escaped).
    static func deniedMessage(_ app: String) -> Localized {
        Localized(
            "You did not allow \(app). Nothing was shared, and your device stays signed out.",
            zh: "您没有允许 \(app)。没有共享任何信息，您的设备保持未登录状态。")
    }
    /// Under either result.
    static let closePage = Localized("You can close this page now.", zh: "您现在可以关闭此页面。")
    /// The link to the account page.
    static let yourAccount = Localized("Your Account", zh: "您的账户")
    /// The link back to code entry.
    static let anotherDevice = Localized("Connect another device", zh: "连接其他设备")

    /// The throttle page's title.
    static let throttledTitle = Localized("Too many attempts", zh: "尝试次数过多")
    /// Its message.
    static let throttledMessage = Localized(
        "Too many codes that don't match any device were entered from your network.",
        zh: "您的网络输入了过多与任何设备都不匹配的代码。")
    /// What to do, and when.
    static func throttledAdvice(minutes: Int) -> Localized {
        Localized(
            "For your security, try again in \(minutes) minute\(minutes == 1 ? "" : "s"). "
                + "Check the code on your device carefully, or ask the device for a new code.",
            zh: "为了您的安全，请在 \(minutes) 分钟后重试。请仔细核对设备上的代码，或让设备生成新代码。")
    }

    /// The title and message of a code-entry problem (unescaped: shown through `HTML.escape`).
    static func words(for problem: DevicePages.EntryProblem) -> (title: Localized, message: Localized) {
        switch problem {
        case .empty:
            (
                Localized("Enter the code", zh: "请输入代码"),
                Localized("Type the code shown on your device.", zh: "请输入设备上显示的代码。")
            )
        case .unknownCode:
            (
                Localized("That code didn't work", zh: "该代码无效"),
                Localized(
                    "It doesn't match any device waiting to connect, or it has expired. Check the code on your device "
                        + "and try again, or ask the device for a new code.",
                    zh: "它与任何等待连接的设备都不匹配，或者已经过期。请核对设备上的代码后重试，或让设备生成新代码。")
            )
        case .noLongerValid(let app):
            (
                Localized("This code is no longer valid", zh: "此代码已失效"),
                Localized(
                    "The code for \(app) has expired or was already used. Ask your device for a new code and enter it "
                        + "here.",
                    zh: "\(app) 的代码已过期或已被使用。请让设备生成新代码，然后在此输入。")
            )
        }
    }
}
