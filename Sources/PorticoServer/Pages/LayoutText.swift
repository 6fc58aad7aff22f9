/// The words of the frame every page shares, and of links many pages repeat.
enum LayoutText {
    /// The footer link to the conditions of use.
    static let terms = Localized("Conditions of Use", zh: "使用条件")
    /// The footer link to the privacy notice.
    static let privacy = Localized("Privacy Notice", zh: "隐私声明")
    /// The footer link to the help page.
    static let help = Localized("Help", zh: "帮助")
    /// The name of the page where people manage the apps they allowed.
    static let yourAccount = Localized("Your Account", zh: "您的账户")
    /// The heading of an alert box.
    static let problem = Localized("There was a problem", zh: "出现了问题")
}
