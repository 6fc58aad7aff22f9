/// The words of FedCM's popups, in every page language.
enum FedCMText {
    private static let platform = PageLayout.platformName

    /// The signed-in popup's title.
    static let signedInTitle = Localized("You are signed in", zh: "您已登录")
    /// Under it.
    static let signedInLead = Localized(
        "You are signed in to \(platform). This window closes by itself; if it stays open, close it.",
        zh: "您已登录 \(platform)。此窗口会自动关闭；如果没有关闭，请手动关闭。")
    /// The consent popup's title (the app's name, escaped, is put in).
    static func consentTitle(_ app: String) -> Localized {
        Localized("\(app) is asking for more", zh: "\(app) 请求更多权限")
    }
    /// Above the list of scopes.
    static let wants = Localized("It wants to:", zh: "它希望：")
    /// Buttons.
    static let allow = Localized("Allow", zh: "允许")
    static let cancel = Localized("Cancel", zh: "取消")
    /// After the decision.
    static let doneTitle = Localized("Done", zh: "完成")
    static let doneLead = Localized(
        "You can go back to the app. This window closes by itself.", zh: "您可以返回应用。此窗口会自动关闭。")
}
