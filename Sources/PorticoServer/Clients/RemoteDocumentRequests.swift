import PorticoHTTP

/// Which back-channel requests may make the provider fetch a document from an app's server: a
/// `private_key_jwt` assertion or a signed request object (keys at a `jwks_uri`), or a client
/// named by a client metadata document's URL (the document itself).
///
/// Why it matters: on SQLite these endpoints run on the epoll threads (``RouteExecution``), and
/// such a fetch waits up to the fetcher's timeout on a server the app (or an attacker
/// registering many such clients) controls. So these requests go to the worker pool; every
/// other request still runs where it did, at no cost beyond reading its form once more. The
/// test is deliberately broad: a request sent there needlessly only takes one more hop.
enum RemoteDocumentRequests {
    /// Whether answering `request` might fetch a client's document or keys.
    static func mayFetch(_ request: Request) -> Bool {
        // A form the endpoint will refuse fetches nothing.
        guard let parameters = try? OAuthParameters(formOf: request) else { return false }
        if parameters["client_assertion"] != nil || parameters["request"] != nil { return true }
        if let id = parameters["client_id"], ClientMetadataDocuments.isDocumentURL(id) { return true }
        if let authorization = request.headers["Authorization"],
            let credentials = try? BasicCredentials(authorization: authorization)?.formURLDecoded()
        {
            return ClientMetadataDocuments.isDocumentURL(credentials.user)
        }
        return false
    }
}
