import Foundation

/// An authorization server the SDK signs people in with: its endpoints and what it supports.
///
/// Make one with ``discover(issuer:)`` for Portico or any OpenID Connect provider, with the
/// ``loginWithAmazon(region:)`` preset, or field by field for a provider without discovery.
public struct Provider: Sendable, Hashable {
    /// The issuer identifier; tokens and callbacks must name it. Nil for a provider without one
    /// (Login with Amazon), which turns the issuer checks off.
    public var issuer: String?
    /// Where the browser is sent to sign in (`/oauth/authorize`, `/ap/oa`).
    public var authorizationEndpoint: URL
    /// Where codes and refresh tokens are redeemed.
    public var tokenEndpoint: URL
    /// The OpenID Connect userinfo endpoint (needs `openid`).
    public var userInfoEndpoint: URL?
    /// A Login-with-Amazon-shaped profile endpoint (`/user/profile`), preferred for profile scopes.
    public var profileEndpoint: URL?
    /// The RFC 7009 revocation endpoint, used by ``AuthorizationManager/signOut(endingProviderSession:)``.
    public var revocationEndpoint: URL?
    /// The JWK Set that signs ID tokens.
    public var jwksURI: URL?
    /// The device authorization endpoint (RFC 8628) or LWA's code-pair endpoint.
    public var deviceAuthorizationEndpoint: URL?
    /// Which device-login dialect ``deviceAuthorizationEndpoint`` speaks.
    public var deviceCodeDialect: DeviceCodeDialect
    /// Whether callbacks carry `iss` (RFC 9207); when true a callback without it is refused.
    public var sendsIssuerInAuthorizationResponse: Bool
    /// The scopes the provider advertises, when it does.
    public var scopesSupported: [String]
    /// The RP-initiated logout endpoint (`end_session_endpoint`, OpenID Connect RP-Initiated
    /// Logout 1.0), where ``AuthorizationManager/signOut(endingProviderSession:)`` ends the
    /// person's session at the provider.
    public var endSessionEndpoint: URL?
    /// The JWS algorithms the provider accepts in DPoP proofs (RFC 9449 §5.1,
    /// `dpop_signing_alg_values_supported`); the SDK binds tokens with DPoP when `ES256` is
    /// among them (see ``AuthorizationManager/usesDPoP``).
    public var dpopSigningAlgorithmsSupported: [String]
    /// The pushed authorization request endpoint (RFC 9126, `pushed_authorization_request_endpoint`).
    /// When there is one, the SDK pushes the authorization parameters there over the back
    /// channel and sends the browser only a `request_uri`, so nothing of the request can be read
    /// or changed on its way through the browser (see ``AuthorizationManager/pushesAuthorizationRequests``).
    public var pushedAuthorizationRequestEndpoint: URL?
    /// Whether the provider takes only pushed requests from every client
    /// (`require_pushed_authorization_requests`); a client can be held to it alone too.
    public var requiresPushedAuthorizationRequests: Bool

    /// A provider with these endpoints.
    public init(
        issuer: String?, authorizationEndpoint: URL, tokenEndpoint: URL, userInfoEndpoint: URL? = nil,
        profileEndpoint: URL? = nil, revocationEndpoint: URL? = nil, jwksURI: URL? = nil,
        deviceAuthorizationEndpoint: URL? = nil, deviceCodeDialect: DeviceCodeDialect = .standard,
        sendsIssuerInAuthorizationResponse: Bool = false, scopesSupported: [String] = [],
        endSessionEndpoint: URL? = nil, dpopSigningAlgorithmsSupported: [String] = [],
        pushedAuthorizationRequestEndpoint: URL? = nil, requiresPushedAuthorizationRequests: Bool = false
    ) {
        self.pushedAuthorizationRequestEndpoint = pushedAuthorizationRequestEndpoint
        self.requiresPushedAuthorizationRequests = requiresPushedAuthorizationRequests
        self.dpopSigningAlgorithmsSupported = dpopSigningAlgorithmsSupported
        self.endSessionEndpoint = endSessionEndpoint
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userInfoEndpoint = userInfoEndpoint
        self.profileEndpoint = profileEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.jwksURI = jwksURI
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.deviceCodeDialect = deviceCodeDialect
        self.sendsIssuerInAuthorizationResponse = sendsIssuerInAuthorizationResponse
        self.scopesSupported = scopesSupported
    }

    /// Whether the provider takes DPoP proofs the SDK can make (ES256).
    public var supportsDPoP: Bool { dpopSigningAlgorithmsSupported.contains("ES256") }

    /// What grants are stored under: the issuer, or the authorization endpoint without one.
    public var identifier: String { issuer ?? authorizationEndpoint.absoluteString }
}
