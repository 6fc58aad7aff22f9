/// The words of Your Account's companion section, in every page language.
enum AccountCompanionText {
    /// The section's heading.
    static let heading = Localized("Portico agent", zh: "Portico agent")
    /// What the section is about.
    static let intro = Localized(
        "Apps on these devices sign you in through the Portico agent without your password; each still asks you first.",
        zh: "这些设备上的应用可以通过 Portico agent 让您无需密码登录；每个应用仍会先征得您的同意。")
    /// One session's name.
    static func agent(on host: String) -> Localized {
        Localized("Portico agent on \(host)", zh: "\(host) 上的 Portico agent")
    }
    /// A session whose agent sent no host name.
    static let unnamedHost = Localized("Portico agent on an unnamed device", zh: "未命名设备上的 Portico agent")
    /// When it signed in.
    static func signedIn(_ time: String) -> Localized {
        Localized("Signed in \(time)", zh: "登录于 \(time)")
    }
    /// Its button.
    static let signOut = Localized("Sign out", zh: "退出")
    /// The button's accessible name.
    static func signOut(_ name: String) -> Localized {
        Localized("Sign out \(name)", zh: "退出 \(name)")
    }
}
