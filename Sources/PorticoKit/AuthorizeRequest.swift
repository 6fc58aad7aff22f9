import Foundation

/// What an app asks for when it authorizes: scopes, whether pages may be shown, and what the
/// result should carry (LWA's `AMZNAuthorizeRequest`).
public struct AuthorizeRequest: Sendable, Hashable {
    /// The permissions asked for. At least one is required.
    public var scopes: [Scope]
    /// Whether the provider's pages may be shown; `.auto` by default.
    public var interactiveStrategy: InteractiveStrategy
    /// Tokens for the app itself (`.accessToken`, the default) or a code for the app's backend.
    public var grantType: GrantType
    /// With `.authorizationCode`: a PKCE `S256` challenge whose verifier the app's backend
    /// keeps. Leave nil and the SDK makes the pair, returning the verifier in the result.
    public var codeChallenge: String?
    /// The method of ``codeChallenge``; only `S256` is accepted (RFC 9700 §2.1.1), and any
    /// other fails before a page is shown.
    public var codeChallengeMethod: String = "S256"
    /// The longest ago the person may have signed in (`max_age`, OpenID Connect); older
    /// sessions sign in again, and the ID token's `auth_time` is checked against it.
    public var maxAge: TimeInterval?
    /// Pre-fills the sign-in page's e-mail field (`login_hint`).
    public var loginHint: String?
    /// The OpenID Connect `prompt` to send (`login`, `consent`, `select_account`, `none`).
    /// Unset, `.always` sends `login` so the pages really appear.
    public var prompt: String?
    /// Further authorization request parameters the provider understands. The SDK's own
    /// parameters (`state`, `code_challenge`, ...) cannot be overridden this way.
    public var additionalParameters: [String: String]
    /// Further token request parameters, sent when this sign-in's code or device code is
    /// redeemed (a companion's `agent_host`). The SDK's own cannot be overridden this way.
    public var tokenParameters: [String: String] = [:]

    /// A request for `scopes`.
    public init(
        scopes: [Scope], interactiveStrategy: InteractiveStrategy = .auto, grantType: GrantType = .accessToken,
        loginHint: String? = nil, prompt: String? = nil, maxAge: TimeInterval? = nil,
        additionalParameters: [String: String] = [:]
    ) {
        self.maxAge = maxAge
        self.scopes = scopes
        self.interactiveStrategy = interactiveStrategy
        self.grantType = grantType
        self.loginHint = loginHint
        self.prompt = prompt
        self.additionalParameters = additionalParameters
    }

    /// `fields` followed by ``tokenParameters`` whose names `fields` does not use.
    func withTokenParameters(_ fields: [(String, String)]) -> [(String, String)] {
        let reserved = Set(fields.map(\.0))
        return fields + tokenParameters.sorted { $0.key < $1.key }.filter { !reserved.contains($0.key) }
    }

    /// The scope names, in order, without repeats.
    var scopeNames: [String] {
        var seen = Set<String>()
        return scopes.map(\.name).filter { seen.insert($0).inserted }
    }
}
