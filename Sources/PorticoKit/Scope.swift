/// A permission an app asks for, such as the person's profile or postal code.
///
/// The built-in scopes mirror Login with Amazon's `AMZNProfileScope`; a product scope of the
/// platform (registered with `portico scope add`) is made with ``init(name:)``, the analogue of
/// `AMZNScopeFactory scopeWithName:`.
public struct Scope: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The scope as the provider knows it, for example `profile:user_id`.
    public let name: String
    /// Data sent with the scope in the `scope_data` parameter, as LWA's `scopeWithName:data:`
    /// does for Alexa device scopes (`productID`, `productInstanceAttributes`).
    public let data: [String: ProfileValue]?

    /// A scope by its provider name, for product scopes the SDK has no constant for.
    public init(name: String) {
        self.name = name
        self.data = nil
    }

    /// A scope with data for the provider (LWA's `AMZNScopeFactory scopeWithName:data:`):
    /// `Scope(name: "alexa:all", data: ["productID": "Speaker", "productInstanceAttributes":
    /// ["deviceSerialNumber": "1234"]])`.
    public init(name: String, data: [String: ProfileValue]) {
        self.name = name
        self.data = data
    }

    /// Lets `"print:photos"` stand for `Scope(name: "print:photos")`.
    public init(stringLiteral value: String) {
        self.init(name: value)
    }

    /// Name, e-mail address and account id.
    public static let profile = Scope(name: "profile")
    /// The account id only.
    public static let profileUserID = Scope(name: "profile:user_id")
    /// The postal code of the person's address.
    public static let postalCode = Scope(name: "postal_code")
    /// The e-mail address and whether it is verified (OpenID Connect).
    public static let email = Scope(name: "email")
    /// An ID token proving who signed in (OpenID Connect).
    public static let openID = Scope(name: "openid")
    /// Lets a host app link the person's account to its own user and hand their sign-in to the
    /// host's mini-programs (see ``AccountLinkSession``).
    public static let accountLink = Scope(name: "account_link")

    /// The scopes that let an app read the person's profile, at `/user/profile` or userinfo.
    static let profileScopes: Set<String> = ["profile", "profile:user_id", "postal_code", "email"]

    /// The name.
    public var description: String { name }
}
