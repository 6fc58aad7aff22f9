/// Why the demo app could not finish a sign-in; each case becomes a readable page.
enum DemoFlowError: Error, Sendable, Equatable {
    /// The callback's state is missing, unknown, expired, or not this browser's (CSRF).
    case unknownState
    /// The provider answered the authorization request with an error (`access_denied` on Cancel).
    case authorizationError(code: String, description: String?)
    /// The callback carried neither a code nor an error.
    case missingCode
    /// The authorization response's `iss` is not the provider's (RFC 9207, mix-up attacks).
    case wrongIssuer(String)
    /// A call to the provider failed; says which and why.
    case provider(step: String, detail: String)
    /// The ID token did not verify (signature, issuer, audience, expiry or nonce).
    case invalidIDToken(String)
}
