extension AuthorizeRequest {
    /// What a successful authorization hands back (LWA's `AMZNAuthorizationGrantType`).
    public enum GrantType: Sendable, Hashable {
        /// The SDK redeems the code itself and stores the tokens; the result carries the access
        /// token and, with a profile scope, the user.
        case accessToken
        /// The SDK stops at the authorization code: the app sends ``AuthorizeResult/authorizationCode``
        /// and ``AuthorizeResult/codeVerifier`` to its own backend, which redeems them. Nothing is
        /// stored on the device.
        case authorizationCode
    }
}
