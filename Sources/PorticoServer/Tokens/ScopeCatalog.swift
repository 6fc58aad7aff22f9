import PorticoStore

/// The scopes Portico knows: the built-in ones of the DESIGN with the words the consent page
/// shows, plus the platform's product scopes from the store (`portico scope add`).
///
/// Discovery advertises them, the authorization and token endpoints validate requests against
/// them, and the consent page describes them, all from this one list.
enum ScopeCatalog {
    /// A built-in scope and what it lets an app see, in plain words.
    struct Entry: Sendable {
        /// The scope as requested.
        let name: String
        /// The consent page's line for it, in every page language.
        let description: Localized
        /// The claims it releases at userinfo, the profile endpoint and in ID tokens.
        let claims: [String]
    }

    /// Built-in scopes (DESIGN, "Scopes and claims").
    static let builtIn: [Entry] = [
        Entry(
            name: "openid", description: Localized("Confirm that it is you when you sign in", zh: "在您登录时确认是您本人"),
            claims: ["sub"]),
        Entry(
            name: "profile",
            description: Localized("See your name, e-mail address and account ID", zh: "查看您的姓名、电子邮件地址和账户 ID"),
            claims: ["user_id", "name", "email"]),
        Entry(
            name: "profile:user_id", description: Localized("See your account ID", zh: "查看您的账户 ID"), claims: ["user_id"]
        ),
        Entry(
            name: "postal_code", description: Localized("See the postal code of your address", zh: "查看您地址的邮政编码"),
            claims: ["postal_code"]),
        Entry(
            name: "email",
            description: Localized("See your e-mail address and whether it is verified", zh: "查看您的电子邮件地址及其是否已验证"),
            claims: ["email", "email_verified"]),
        Entry(
            name: "device_sso",
            description: Localized(
                "Keep you signed in across this company's apps on this device", zh: "在此设备上让您在该公司的各个应用中保持登录"),
            claims: []),
        Entry(
            name: CompanionClients.scope,
            description: Localized(
                "Sign you in to other apps on this device without your password, asking you first",
                zh: "在此设备上先征得您的同意，再让您无需密码登录其他应用"),
            claims: []),
        Entry(
            name: "account_link",
            description: Localized(
                "Link your account at this app and let its mini-programs use your sign-in",
                zh: "在此应用中关联您的账户，并允许其小程序使用您的登录状态"),
            claims: []),
        Entry(
            name: "offline_access",
            description: Localized("Stay connected when you are not using the app", zh: "在您不使用该应用时保持连接"),
            claims: []),
    ]

    /// The names of the built-in scopes.
    static let builtInNames: Set<String> = Set(builtIn.map(\.name))

    /// Every claim any scope can release, for discovery's `claims_supported`.
    static let claimsSupported: [String] = {
        var seen: [String] = [
            "sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "at_hash", "sid", "ds_hash", "amr",
        ]
        for entry in builtIn { for claim in entry.claims where !seen.contains(claim) { seen.append(claim) } }
        return seen
    }()

    /// Every scope name the provider supports now: built-in and product scopes.
    static func supportedNames(in transaction: any StoreTransaction) throws -> [String] {
        builtIn.map(\.name) + (try transaction.productScopes().map(\.name))
    }

    /// The plain words for `scope` in `language`: the built-in description, the product scope's
    /// own (as the operator wrote it), or the name itself when the scope is unknown (never shown
    /// blank).
    static func description(
        of scope: String, in transaction: any StoreTransaction, language: PageLanguage = .english
    ) throws -> String {
        if let entry = builtIn.first(where: { $0.name == scope }) { return entry.description[language] }
        return try transaction.productScope(name: scope)?.description ?? scope
    }

    /// Splits a space-delimited `scope` parameter (RFC 6749 §3.3) into distinct names, in order.
    static func parse(_ parameter: String?) -> [String] {
        guard let parameter else { return [] }
        var seen = Set<String>()
        return parameter.split(separator: " ").map(String.init).filter { seen.insert($0).inserted }
    }
}
