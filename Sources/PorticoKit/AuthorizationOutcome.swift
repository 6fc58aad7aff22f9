import Foundation

/// How a ``UserAgent``'s part of an authorization ended.
public struct AuthorizationOutcome: Sendable {
    enum Kind: Sendable {
        case callback(URL, redirectURI: URL)
        case tokens(TokenResponse)
    }

    let kind: Kind

    /// The browser came back to `redirectURI` with `url` (its query carries `code` or `error`).
    public static func callback(_ url: URL, redirectURI: URL) -> AuthorizationOutcome {
        AuthorizationOutcome(kind: .callback(url, redirectURI: redirectURI))
    }

    /// The agent obtained tokens itself (device login).
    static func tokens(_ response: TokenResponse) -> AuthorizationOutcome {
        AuthorizationOutcome(kind: .tokens(response))
    }
}
