import PorticoCrypto
import PorticoStore

/// The claims about a person that granted scopes release, for ID tokens, userinfo and the
/// profile endpoint.
///
/// Why one table: the DESIGN's "Scopes and claims" (mirrored in ``ScopeCatalog``) decides what
/// an app may see; reading it in one place means an ID token can never carry a claim that
/// userinfo would refuse, or the other way round.
enum UserClaims {
    /// The claims `scopes` release about `user`, by claim name. `sub` is included when
    /// `openid` is granted; claims without a value (no postal code) are left out.
    ///
    /// `subject` is what this client knows the person as (`sub` and `user_id`): a pairwise
    /// subject (OIDC Core §8.1), or the account id when nil.
    static func released(about user: UserRecord, scopes: some Sequence<String>, subject: String? = nil) -> [String:
        JSONValue]
    {
        var claims: [String: JSONValue] = [:]
        for scope in scopes {
            guard let entry = ScopeCatalog.builtIn.first(where: { $0.name == scope }) else { continue }
            for name in entry.claims {
                if let value = value(of: name, for: user) { claims[name] = value }
            }
        }
        if let subject {
            if claims["sub"] != nil { claims["sub"] = .string(subject) }
            if claims["user_id"] != nil { claims["user_id"] = .string(subject) }
        }
        return claims
    }

    /// The value of one claim for `user`, or nil when the person has none.
    static func value(of claim: String, for user: UserRecord) -> JSONValue? {
        switch claim {
        case "sub", "user_id": .string(user.id)
        case "name": .string(user.name)
        case "email": .string(user.email)
        // True only once the person followed a link mailed to the address (sign-up
        // confirmation, password reset): an unproved address is never vouched for.
        case "email_verified": .bool(user.isEmailVerified)
        case "postal_code": user.postalCode.map(JSONValue.string)
        default: nil
        }
    }
}
