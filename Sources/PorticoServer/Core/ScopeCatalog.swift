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
        /// The consent page's line for it.
        let description: String
        /// The claims it releases at userinfo, the profile endpoint and in ID tokens.
        let claims: [String]
    }

    /// Built-in scopes (DESIGN, "Scopes and claims").
    static let builtIn: [Entry] = [
        Entry(name: "openid", description: "Confirm that it is you when you sign in", claims: ["sub"]),
        Entry(
            name: "profile", description: "See your name, e-mail address and account ID",
            claims: ["user_id", "name", "email"]),
        Entry(name: "profile:user_id", description: "See your account ID", claims: ["user_id"]),
        Entry(name: "postal_code", description: "See the postal code of your address", claims: ["postal_code"]),
        Entry(
            name: "email", description: "See your e-mail address and whether it is verified",
            claims: ["email", "email_verified"]),
        Entry(
            name: "offline_access", description: "Stay connected when you are not using the app",
            claims: []),
    ]

    /// The names of the built-in scopes.
    static let builtInNames: Set<String> = Set(builtIn.map(\.name))

    /// Every claim any scope can release, for discovery's `claims_supported`.
    static let claimsSupported: [String] = {
        var seen: [String] = ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "at_hash"]
        for entry in builtIn { for claim in entry.claims where !seen.contains(claim) { seen.append(claim) } }
        return seen
    }()

    /// Every scope name the provider supports now: built-in and product scopes.
    static func supportedNames(in transaction: any StoreTransaction) throws -> [String] {
        builtIn.map(\.name) + (try transaction.productScopes().map(\.name))
    }

    /// The plain words for `scope`: the built-in description, the product scope's own, or the
    /// name itself when the scope is unknown (never shown blank).
    static func description(of scope: String, in transaction: any StoreTransaction) throws -> String {
        if let entry = builtIn.first(where: { $0.name == scope }) { return entry.description }
        return try transaction.productScope(name: scope)?.description ?? scope
    }

    /// Splits a space-delimited `scope` parameter (RFC 6749 §3.3) into distinct names, in order.
    static func parse(_ parameter: String?) -> [String] {
        guard let parameter else { return [] }
        var seen = Set<String>()
        return parameter.split(separator: " ").map(String.init).filter { seen.insert($0).inserted }
    }
}
