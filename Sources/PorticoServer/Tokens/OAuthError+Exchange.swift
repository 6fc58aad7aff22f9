extension OAuthError {
    /// A `resource` or `audience` this client may not get tokens for (RFC 8707 §2, RFC 8693
    /// §2.2.2).
    static func invalidTarget(_ description: String) -> OAuthError {
        OAuthError(code: "invalid_target", description: description, status: .badRequest)
    }

    /// The request needs the person on a page first (OIDC Core §3.1.2.6): Native SSO for scopes
    /// no app of the group was allowed.
    static func interactionRequired(_ description: String) -> OAuthError {
        OAuthError(code: "interaction_required", description: description, status: .badRequest)
    }
}
