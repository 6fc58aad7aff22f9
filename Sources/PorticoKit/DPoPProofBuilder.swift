import Foundation

/// Writes DPoP proofs (RFC 9449 §4): a JWS of `typ` `dpop+jwt` signed by the installation's
/// ``DPoPKey``, naming one request (method and URL) at one moment.
enum DPoPProofBuilder {
    /// The header of every proof.
    private struct Header: Encodable {
        let typ = "dpop+jwt"
        let alg = "ES256"
        let jwk: [String: String]
    }

    /// The claims of one proof; `nonce` and `ath` are left out when nil.
    private struct Claims: Encodable {
        let jti: String
        let htm: String
        let htu: String
        let iat: Int64
        let nonce: String?
        let ath: String?
    }

    /// A proof for a `method` request to `url`, at `now`.
    ///
    /// - Parameters:
    ///   - nonce: the server's latest `DPoP-Nonce`, when it sent one (§8).
    ///   - accessToken: the token presented with the proof at a resource; its hash becomes
    ///     `ath` (§7.1). Nil at the token endpoint.
    static func proof(
        key: DPoPKey, method: String, url: URL, nonce: String?, accessToken: String?, now: Date
    ) throws(AuthorizationError) -> String {
        let claims = Claims(
            jti: Base64URLCoding.encode(PlatformCrypto.randomBytes(16)), htm: method.uppercased(),
            htu: targetURI(url), iat: Int64(now.timeIntervalSince1970.rounded(.down)), nonce: nonce,
            ath: accessToken.map { Base64URLCoding.encode(PlatformCrypto.sha256(Array($0.utf8))) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header: Data
        let payload: Data
        do {
            header = try encoder.encode(Header(jwk: key.publicJWK))
            payload = try encoder.encode(claims)
        } catch {
            throw AuthorizationError(.invalidInput, "cannot encode a DPoP proof", underlyingError: error)
        }
        let signingInput = Base64URLCoding.encode(header) + "." + Base64URLCoding.encode(payload)
        let signature = try key.signature(of: Array(signingInput.utf8))
        return signingInput + "." + Base64URLCoding.encode(signature)
    }

    /// `htu`: the request's URL without query and fragment (§4.2).
    static func targetURI(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return url.absoluteString
        }
        components.query = nil
        components.fragment = nil
        return components.string ?? url.absoluteString
    }
}
