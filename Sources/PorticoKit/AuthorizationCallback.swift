import Foundation

/// Reads the redirect that ends an authorization and checks that it belongs to this attempt.
///
/// Order matters: `state` is checked first, so a forged callback (even a forged error) never
/// reaches the app; then `iss` (RFC 9207), so a code from another provider is never redeemed
/// at this one; only then is an `error` reported or the `code` taken.
enum AuthorizationCallback {
    /// The code from `url`, or the error it carries.
    static func code(
        from url: URL, pending: PendingAuthorization, provider: Provider
    ) throws(AuthorizationError) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw AuthorizationError(.invalidResponse, "the callback is not a URL")
        }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard parameters[item.name] == nil else {
                throw AuthorizationError(.invalidResponse, "the callback repeats the parameter \(item.name)")
            }
            parameters[item.name] = item.value ?? ""
        }
        guard let state = parameters["state"], state == pending.state else {
            throw AuthorizationError(
                .stateMismatch, "the callback's state does not match this authorization; it was ignored")
        }
        if let issuer = parameters["iss"] {
            guard let expected = provider.issuer, issuer == expected else {
                throw AuthorizationError(.issuerMismatch, "the callback came from the issuer \(issuer)")
            }
        } else if provider.sendsIssuerInAuthorizationResponse {
            throw AuthorizationError(.issuerMismatch, "the callback lacks the issuer the provider always sends")
        }
        if let error = parameters["error"] {
            throw AuthorizationError.oauth(error, description: parameters["error_description"])
        }
        guard let code = parameters["code"], !code.isEmpty else {
            throw AuthorizationError(.invalidResponse, "the callback has neither a code nor an error")
        }
        return code
    }
}
