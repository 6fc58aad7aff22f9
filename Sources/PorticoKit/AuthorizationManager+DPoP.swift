import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AuthorizationManager {
    /// `request` with the signed-in person's access token: `Authorization: DPoP <token>` and a
    /// `DPoP` proof for the request's method and URL when the token is bound to the
    /// installation's key (RFC 9449 §7), else `Authorization: Bearer <token>`.
    ///
    /// The token is refreshed first when it is close to expiry, as ``validAccessToken()``
    /// does. A proof names one request at one moment: call this for every request, retries
    /// included, just before sending it, and never change the method or URL afterwards.
    ///
    /// A resource server may ask for its own nonce (a 401 with `WWW-Authenticate: DPoP
    /// error="use_dpop_nonce"` and a `DPoP-Nonce` header): pass that answer as `refusal` and
    /// send the new request once more.
    ///
    /// - Parameters:
    ///   - request: the request to the resource server, method and URL final.
    ///   - refusal: the server's answer to the previous attempt, whose `DPoP-Nonce` the new
    ///     proof carries; nil for a first attempt.
    public func authorizedRequest(
        _ request: URLRequest, retrying refusal: HTTPURLResponse? = nil
    ) async throws(AuthorizationError) -> URLRequest {
        guard let url = request.url else { throw AuthorizationError(.invalidInput, "the request has no URL") }
        if let nonce = refusal?.value(forHTTPHeaderField: "DPoP-Nonce") { DPoPNonceBook.remember(nonce, from: url) }
        return try authorized(request, with: try await validGrant())
    }

    /// `request` with `grant`'s access token, and a proof when the token is DPoP-bound.
    func authorized(_ request: URLRequest, with grant: StoredGrant) throws(AuthorizationError) -> URLRequest {
        guard let url = request.url else { throw AuthorizationError(.invalidInput, "the request has no URL") }
        var request = request
        guard grant.isDPoPBound else {
            request.setValue("Bearer \(grant.accessToken)", forHTTPHeaderField: "Authorization")
            return request
        }
        let proof = try DPoPProofBuilder.proof(
            key: try dpopKey(), method: request.httpMethod ?? "GET", url: url,
            nonce: DPoPNonceBook.nonce(for: url), accessToken: grant.accessToken, now: now())
        request.setValue("DPoP \(grant.accessToken)", forHTTPHeaderField: "Authorization")
        request.setValue(proof, forHTTPHeaderField: "DPoP")
        return request
    }

    /// The store's DPoP key (made on first use).
    func dpopKey() throws(AuthorizationError) -> DPoPKey {
        do { return try store.dpopKey() } catch {
            throw AuthorizationError.wrap(error, as: .storage, "the DPoP key cannot be read")
        }
    }

    /// The key a new grant is bound to: the store's when ``usesDPoP`` and the provider supports
    /// DPoP, else nil (a bearer grant).
    func dpopKeyForNewGrant() throws(AuthorizationError) -> DPoPKey? {
        guard usesDPoP, provider.supportsDPoP else { return nil }
        return try dpopKey()
    }
}
