import Foundation

/// The companion on a phone: an app opens the platform's companion app by a universal link
/// (iOS) or an app link (Android) carrying its authorization request, and the companion sends
/// the result back to the app's redirect URI. The shared logic lives here, in plain
/// Foundation, so a phone's companion and PorticoKit's apps read and write the same links;
/// see the "The companion on phones" article.
///
/// Why the redirect URI is the only address: on iOS `sourceApplication` is nil when the caller
/// is from another team, so the companion cannot tell which app opened it. It therefore never
/// trusts the caller, only the provider: it forwards the request, and the provider answers a
/// code only when `redirect_uri` is registered for `client_id`; ``returnURL(for:answering:)``
/// then builds the way back to exactly that URI, and to nothing when the answer is not a
/// code for this request.
public enum CompanionLink {
    /// The universal link that asks the companion at `base` (for example
    /// `https://id.example/companion`) to authorize `request`.
    public static func url(for request: CompanionRequest, base: URL) -> URL? {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)
        let fields: [(String, String?)] = [
            ("request_id", request.requestID), ("client_id", request.clientID), ("redirect_uri", request.redirectURI),
            ("scope", request.scope), ("state", request.state), ("nonce", request.nonce),
            ("code_challenge", request.codeChallenge), ("code_challenge_method", request.codeChallengeMethod ?? "S256"),
            ("prompt", request.prompt),
        ]
        components?.queryItems = fields.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        return components?.url
    }

    /// The request a universal link carries, checked as a socket message is: repeated
    /// parameters, missing fields and oversized values are refused.
    public static func request(from url: URL) throws(CompanionProtocolError) -> CompanionRequest {
        guard let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems else {
            throw .invalid("the link carries no request")
        }
        var values: [String: String] = [:]
        for item in items {
            guard values[item.name] == nil else { throw .invalid("the link repeats \(item.name)") }
            values[item.name] = item.value ?? ""
        }
        var request = CompanionRequest(.authorize)
        request.requestID = values["request_id"]
        request.clientID = values["client_id"]
        request.redirectURI = values["redirect_uri"]
        request.scope = values["scope"]
        request.state = values["state"]
        request.nonce = values["nonce"]
        request.codeChallenge = values["code_challenge"]
        request.codeChallengeMethod = values["code_challenge_method"]
        request.prompt = values["prompt"]
        try request.check()
        return request
    }

    /// Where the companion sends the person back: `request`'s redirect URI with the code, the
    /// same `state` and the issuer; or with `error` when the person declined. Nil when the
    /// answer does not belong to this request (another `state`) or is a failure the provider
    /// gave before it accepted the redirect URI (then the URI may not be the app's at all).
    public static func returnURL(for request: CompanionRequest, answering reply: CompanionReply) -> URL? {
        guard let redirect = request.redirectURI, var components = URLComponents(string: redirect) else { return nil }
        var items = components.queryItems ?? []
        if reply.ok {
            guard let code = reply.code, let state = reply.state, state == request.state else { return nil }
            items += [URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: state)]
        } else {
            // Only the person's answers come back to the app; anything else (an unregistered
            // redirect URI, an unknown client) is shown in the companion and never redirected.
            guard let error = reply.error, ["access_denied", "timeout"].contains(error) else { return nil }
            items += [URLQueryItem(name: "error", value: error), URLQueryItem(name: "state", value: request.state)]
        }
        if let issuer = reply.iss { items.append(URLQueryItem(name: "iss", value: issuer)) }
        components.queryItems = items
        return components.url
    }
}
