/// Whether an authorization may show the provider's pages (Login with Amazon's
/// `AMZNInteractiveStrategy`).
public enum InteractiveStrategy: Sendable, Hashable {
    /// Use the stored grant when it covers the requested scopes (refreshing it if needed);
    /// otherwise show the provider's pages.
    case auto
    /// Always show the provider's pages, even when a stored grant would do.
    case always
    /// Never show a page: use the stored grant (refreshing it silently) or fail with
    /// ``AuthorizationError/Code/authorizationRequired``. For background work and app start.
    case never
}
