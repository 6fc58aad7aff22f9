import PorticoStore

/// How a request to a protocol endpoint authenticates its client.
public enum ClientCredentials: Sendable {
    /// `Authorization: Basic` (client_secret_basic), id and secret form-encoded first.
    case basic(id: String, secret: String)
    /// `client_id` and `client_secret` in the form (client_secret_post).
    case post(id: String, secret: String)
    /// A public client's `client_id` in the form.
    case id(String)
    /// Nothing.
    case none

    /// What `client` would send: its id when public, Basic with `secret` when confidential.
    public static func of(_ client: Client, secret: String = ProviderHarness.confidentialSecret) -> ClientCredentials {
        client.type == .public ? .id(client.id) : .basic(id: client.id, secret: secret)
    }
}
