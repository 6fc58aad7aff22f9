import Foundation
import PorticoCrypto

/// An authorization request that passed every check of the authorization endpoint, as it
/// travels through the sign-in and consent pages.
///
/// It holds only what was validated against the client's registration, so the pages never
/// look at raw parameters again; it crosses the browser sealed in a ``PendingRequestSeal``.
struct AuthorizationRequest: Sendable, Equatable {
    /// A random identifier; CSRF tokens are bound to it.
    var id: String
    /// The client that asked.
    var clientID: String
    /// The redirect URI the code goes to: the one the request named (exactly as given), or the
    /// client's only registered one when the request named none.
    var redirectURI: String
    /// The scopes asked for, distinct, in request order.
    var scopes: [String]
    /// The client's `state`, returned unchanged.
    var state: String?
    /// The OIDC `nonce` for the ID token.
    var nonce: String?
    /// The PKCE `code_challenge` (S256).
    var codeChallenge: String
    /// The `prompt` values.
    var prompts: Set<Prompt>
    /// The `login_hint`, used to fill in the e-mail field.
    var loginHint: String?
    /// The earliest password entry a session may rest on (from `max_age` and `prompt=login`),
    /// fixed when the request arrived so that a fresh sign-in always satisfies it.
    var authenticatedSince: Date?
    /// The page language the app asked for with `ui_locales`, when it named a supported one;
    /// otherwise each page follows the browser's `Accept-Language`.
    var language: PageLanguage? = nil
    /// When the request arrived.
    var issuedAt: Date
    /// When the sign-in pages stop accepting it.
    var expiresAt: Date
    /// The resource server (RFC 8707) the access token is meant for, if the app named one.
    var resource: String? = nil
    /// `dpop_jkt` (RFC 9449 §10): the thumbprint of the DPoP key the code is bound to.
    var dpopKeyThumbprint: String? = nil
    /// Set when the sign-in serves a device login (RFC 8628) instead of a redirect: the
    /// normalized user code being approved. Sign-in then returns to `/device` for the device's
    /// own consent page, and no authorization code can be issued for the request.
    var deviceUserCode: String? = nil

    /// A sign-in for the device login whose user code is `userCode`: no redirect URI of the app
    /// (failures come back to `/device`), no PKCE, no prompt. It lives as long as any pending
    /// request; the device page checks the code itself at every step, so a code that expires
    /// meanwhile is reported as such rather than as a stale sign-in.
    static func deviceSignIn(userCode: String, clientID: String, scopes: [String], now: Date)
        -> AuthorizationRequest
    {
        let arrival = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        return AuthorizationRequest(
            id: SecureRandom.token(bits: 128), clientID: clientID, redirectURI: AuthorizationFlow.devicePath,
            scopes: scopes, state: nil, nonce: nil, codeChallenge: "", prompts: [], loginHint: nil,
            authenticatedSince: nil, issuedAt: arrival,
            expiresAt: arrival.addingTimeInterval(PendingRequestSeal.lifetime),
            deviceUserCode: userCode)
    }

    /// Whether this request is the sign-in of a device login.
    var isDeviceSignIn: Bool { deviceUserCode != nil }

    /// Whether `authTime` (a session's last password entry) is recent enough for this request.
    func acceptsAuthentication(at authTime: Date) -> Bool {
        guard let authenticatedSince else { return true }
        return authTime >= authenticatedSince
    }

    /// Whether the consent page must be shown even if every scope was granted before.
    var forcesConsent: Bool { prompts.contains(.consent) }

    /// Whether no page may be shown.
    var forbidsInteraction: Bool { prompts.contains(.none) }

    /// Whether the authorization endpoint must ask for the password whatever the session.
    var forcesLogin: Bool { prompts.contains(.login) || prompts.contains(.selectAccount) }
}
