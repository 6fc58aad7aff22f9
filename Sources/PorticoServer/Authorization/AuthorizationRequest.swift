import Foundation

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
