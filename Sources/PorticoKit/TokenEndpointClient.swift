import Foundation

/// Posts to the token endpoint, with a DPoP proof when the manager uses DPoP: code exchange,
/// refresh and device-code polling all go through here, so every grant binds alike. Pushed
/// authorization requests (``PushedAuthorizationClient``) go through here too: the PAR endpoint
/// takes proofs and asks for nonces the way the token endpoint does.
struct TokenEndpointClient: Sendable {
    let http: HTTPClient
    /// The key that signs the proofs; nil sends none (bearer tokens).
    let dpopKey: DPoPKey?

    /// POSTs `fields` to `url`. With a key, a `use_dpop_nonce` answer (400 with a `DPoP-Nonce`
    /// header, RFC 9449 §8) is retried once with that nonce; any nonce the server sends is
    /// remembered for the next request.
    func post(_ url: URL, _ fields: [(String, String)]) async throws(AuthorizationError) -> HTTPReply {
        guard let dpopKey else { return try await http.postForm(url, fields) }
        var reply = try await post(url, fields, key: dpopKey)
        let asksForNonce = reply.status == 400 && reply.jsonObject?["error"]?.stringValue == "use_dpop_nonce"
        if DPoPNonceBook.remember(from: reply, of: url), asksForNonce {
            reply = try await post(url, fields, key: dpopKey)
            DPoPNonceBook.remember(from: reply, of: url)
        }
        return reply
    }

    private func post(_ url: URL, _ fields: [(String, String)], key: DPoPKey) async throws(AuthorizationError)
        -> HTTPReply
    {
        let proof = try DPoPProofBuilder.proof(
            key: key, method: "POST", url: url, nonce: DPoPNonceBook.nonce(for: url), accessToken: nil, now: Date())
        return try await http.postForm(url, fields, headers: ["DPoP": proof])
    }
}
