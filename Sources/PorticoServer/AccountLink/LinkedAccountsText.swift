/// The words of the account link on the consent page and in Your Account, in every page
/// language.
///
/// Texts that take a value expect it already escaped where they go into markup; the consent
/// line is escaped by the consent page itself.
enum LinkedAccountsText {
    private static let platform = PageLayout.platformName

    /// The consent page's line for `account_link`, naming the host and its mini-programs.
    static func consentLine(host: String, miniPrograms: [String]) -> Localized {
        guard !miniPrograms.isEmpty else {
            return Localized(
                "Link your account at \(host) to your \(platform) account, and let the mini-programs that run "
                    + "inside \(host) use your \(platform) sign-in (it has none yet)",
                zh: "将您在 \(host) 的账户与您的 \(platform) 账户关联，并允许在 \(host) 中运行的小程序使用您的 \(platform) 登录状态（目前还没有小程序）")
        }
        return Localized(
            "Link your account at \(host) to your \(platform) account, and let its mini-programs use your "
                + "\(platform) sign-in: \(miniPrograms.joined(separator: ", "))",
            zh: "将您在 \(host) 的账户与您的 \(platform) 账户关联，并允许其小程序使用您的 \(platform) 登录状态："
                + miniPrograms.joined(separator: "、"))
    }

    /// The Your Account section's heading.
    static let heading = Localized("Linked accounts", zh: "已关联的账户")
    /// Above the list.
    static let intro = Localized(
        "You linked your account at these apps to \(platform). Their mini-programs use your \(platform) sign-in "
            + "while the link lasts; unlinking ends it and signs the app and its mini-programs out.",
        zh: "您已将在这些应用中的账户与 \(platform) 关联。关联期间，它们的小程序可以使用您的 \(platform) 登录状态；解除关联后，该应用及其小程序都将退出登录。")
    /// When the link was made.
    static func linkedSince(_ when: String) -> Localized { Localized("Linked since \(when)", zh: "关联于 \(when)") }
    /// Above the mini-programs.
    static let miniProgramsLabel = Localized("Its mini-programs:", zh: "其小程序：")
    /// When the host has none.
    static let noMiniPrograms = Localized("No mini-programs yet.", zh: "目前还没有小程序。")
    /// The unlink button.
    static let unlink = Localized("Unlink", zh: "解除关联")
    /// Its accessible name.
    static func unlinkApp(_ app: String) -> Localized { Localized("Unlink \(app)", zh: "解除与 \(app) 的关联") }
    /// The confirmation page's heading.
    static func confirmTitle(_ app: String) -> Localized {
        Localized("Unlink your account at \(app)?", zh: "解除您在 \(app) 的账户关联？")
    }
    /// What unlinking does.
    static func confirmEffect(_ app: String) -> Localized {
        Localized(
            "\(app) and its mini-programs will no longer be able to use your \(platform) sign-in, and they will be "
                + "signed out. To use them with \(platform) again you will have to link again.",
            zh: "\(app) 及其小程序将无法再使用您的 \(platform) 登录状态，并将退出登录。如需再次通过 \(platform) 使用它们，您需要重新关联。")
    }
    /// The cancel link.
    static let keep = Localized("Keep the link", zh: "保留关联")
    /// After unlinking.
    static let unlinked = Localized(
        "The account was unlinked. The app and its mini-programs were signed out.", zh: "已解除账户关联，该应用及其小程序已退出登录。")
}
