import PorticoStore

/// An authorization request a page carries (sealed in its `request` field), opened and checked,
/// with the client it names.
///
/// Named apart from PorticoKit's `PendingAuthorization`, an app's side of a sign-in in flight.
struct PendingAuthorizationRequest: Sendable {
    /// The request as `/oauth/authorize` accepted it.
    let request: AuthorizationRequest
    /// Its client, which still exists (and still has the redirect URI registered).
    let client: Client
}
