import Foundation

/// Whether and how an ``AuthorizationManager`` pushes its authorization requests (RFC 9126)
/// before it shows the provider's pages.
///
/// Why push at all: a pushed request travels over the back channel, authenticated, and the
/// browser carries only a `request_uri`; nothing of it (scopes, PKCE challenge, redirect URI) can
/// be read or changed on the way, and the provider checks it before the person sees a page. A
/// client registered with `--require-par` is refused without it.
public enum PushedAuthorizationMode: Sendable {
    /// Push when the provider advertises `pushed_authorization_request_endpoint`, authenticated
    /// as a public client (its `client_id`), with a DPoP proof when the manager binds tokens
    /// (the proof binds the code to the installation's key, RFC 9449 §10.1); the plain
    /// authorization URL otherwise. The default.
    case whenAdvertised
    /// Never push: the authorization parameters go through the browser as before.
    case never
    /// Push through the app's own backend when the provider advertises PAR: a confidential
    /// client (a host app) cannot authenticate from the device, so the closure hands the
    /// request to the backend, which posts it with the client's credentials and answers the
    /// provider's ``PushedAuthorizationResponse``. When the app redeems the code itself with
    /// DPoP, the request carries `dpop_jkt` so the code is still bound to the installation's key.
    case through(@Sendable (PushedAuthorizationRequest) async throws -> PushedAuthorizationResponse)
}
