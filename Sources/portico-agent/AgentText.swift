import PorticoKit

/// What the agent says to the person, in English or Simplified Chinese by the locale
/// (`LC_ALL`, then `LC_MESSAGES`, then `LANG`, as POSIX orders them).
struct AgentText: Sendable {
    enum Language: Sendable {
        case english
        case simplifiedChinese
    }

    let language: Language

    init(environment: [String: String]) {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        language = locale.lowercased().hasPrefix("zh") ? .simplifiedChinese : .english
    }

    /// The `Accept-Language` for the provider's scope descriptions.
    var acceptLanguage: String { language == .simplifiedChinese ? "zh-CN, zh;q=0.9, en;q=0.5" : "en" }

    func signedIn(as name: String) -> String {
        language == .simplifiedChinese ? "已登录：\(name)。" : "Signed in as \(name)."
    }

    var signedOut: String { language == .simplifiedChinese ? "已退出登录。" : "Signed out." }

    var nobodySignedIn: String {
        language == .simplifiedChinese
            ? "没有人登录。请运行 `portico-agent login`。" : "Nobody is signed in. Run `portico-agent login`."
    }

    var sessionEnded: String {
        language == .simplifiedChinese
            ? "此代理的登录已在别处结束（例如在“您的账户”中退出）。请运行 `portico-agent login` 重新登录。"
            : "The agent's sign-in was ended elsewhere (for example Sign out in Your Account). Run `portico-agent login` again."
    }

    func serving(path: String, name: String) -> String {
        language == .simplifiedChinese
            ? "Portico 代理正在为 \(name) 服务，套接字：\(path)。按 Ctrl-C 停止。"
            : "The Portico agent serves \(name) at \(path). Press Ctrl-C to stop."
    }

    /// The question for one app: its name, its permissions in plain words, the person's name.
    func question(_ consent: PendingConsentView, person: String) -> String {
        switch (consent.kind, language) {
        case (.continue, .english):
            return "[\(consent.id)] \"\(consent.clientName)\" wants to sign you in.\nContinue as \(person)? [y/n] "
        case (.continue, .simplifiedChinese):
            return "[\(consent.id)]“\(consent.clientName)”请求登录。\n以 \(person) 的身份继续？[y/n] "
        case (.consent, .english):
            let lines = consent.descriptions.map { "  - \($0)" }.joined(separator: "\n")
            return "[\(consent.id)] \"\(consent.clientName)\" wants to sign you in as \(person) and be able to:\n"
                + "\(lines)\nAllow? [y/n] "
        case (.consent, .simplifiedChinese):
            let lines = consent.descriptions.map { "  - \($0)" }.joined(separator: "\n")
            return "[\(consent.id)]“\(consent.clientName)”请求以 \(person) 的身份登录，并将可以：\n\(lines)\n允许吗？[y/n] "
        }
    }

    func decided(_ allowed: Bool, clientName: String) -> String {
        switch (allowed, language) {
        case (true, .english): "Allowed \"\(clientName)\"."
        case (false, .english): "Declined \"\(clientName)\"."
        case (true, .simplifiedChinese): "已允许“\(clientName)”。"
        case (false, .simplifiedChinese): "已拒绝“\(clientName)”。"
        }
    }

    func expired(clientName: String) -> String {
        language == .simplifiedChinese
            ? "“\(clientName)”的请求已结束（超时或应用已取消）。"
            : "The request of \"\(clientName)\" ended (timed out or cancelled by the app)."
    }

    var nothingPending: String { language == .simplifiedChinese ? "没有等待中的请求。" : "No consents are waiting." }

    func kindWord(_ kind: PendingConsentView.Kind) -> String {
        switch (kind, language) {
        case (.consent, .english): "consent"
        case (.continue, .english): "continue"
        case (.consent, .simplifiedChinese): "同意"
        case (.continue, .simplifiedChinese): "继续"
        }
    }
}

/// A waiting consent as the texts need it.
struct PendingConsentView: Sendable {
    typealias Kind = CompanionConsentKind
    let id: String
    let clientName: String
    let kind: Kind
    let descriptions: [String]
}
