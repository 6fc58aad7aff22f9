import Foundation

/// POSTs an `application/x-www-form-urlencoded` form (a back-channel `logout_token`) to a URL a
/// client registered, through ``OutboundHTTPClient``: only to addresses its policy allows, with
/// short timeouts, reading no more than the answer's status.
struct FormPoster: Sendable {
    /// The client that sends.
    let client: OutboundHTTPClient

    /// POSTs `fields` to `url` and reads the status of the answer.
    func post(_ fields: [(String, String)], to url: URL) -> OutboundHTTPClient.Exchange {
        // RFC 3986 unreserved characters as they are, everything else percent-encoded: the
        // same encoding the authorization responses use.
        let body = fields.map {
            "\(AuthorizationResponse.percentEncode($0.0))=\(AuthorizationResponse.percentEncode($0.1))"
        }
        .joined(separator: "&")
        return client.post(Array(body.utf8), contentType: "application/x-www-form-urlencoded", to: url)
    }
}
