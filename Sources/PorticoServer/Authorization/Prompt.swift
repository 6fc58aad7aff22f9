/// A value of the OIDC `prompt` parameter (OpenID Connect Core §3.1.2.1).
enum Prompt: String, Sendable, Hashable, CaseIterable {
    /// Show no page: answer at once, or fail with `login_required` / `consent_required`.
    case none
    /// Ask for the password again even when a session exists.
    case login
    /// Show the consent page even when everything asked for was granted before.
    case consent
    /// Let the person pick an account; Portico has one account per browser, so it asks for
    /// sign-in as `login` does.
    case selectAccount = "select_account"
}
