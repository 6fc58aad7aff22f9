import Foundation
import PorticoCrypto

/// A client's DPoP key in a test: makes proofs (RFC 9449 §4.2) the way a client would, and
/// malformed ones the way an attacker or a careless client would.
public struct DPoPProver: Sendable {
    /// The private key.
    public let key: SigningKey

    /// A new key for `algorithm`.
    public init(_ algorithm: SignatureAlgorithm = .es256) throws {
        key = try SigningKey.generate(algorithm)
    }

    /// The RFC 7638 thumbprint the server binds tokens to.
    public var thumbprint: String { get throws { try key.publicJWK.thumbprint() } }

    /// A proof for `method` `url`; the arguments after it bend one part of it.
    public func proof(
        _ method: String, _ url: String, accessToken: String? = nil, jti: String? = SecureRandom.token(),
        issuedAt: Date = Date(), nonce: String? = nil, type: String = "dpop+jwt", jwk: JSONValue? = nil
    ) -> String {
        var claims = JWTClaims(issuedAt: issuedAt, jwtID: jti)
        claims["htm"] = .string(method)
        claims["htu"] = .string(url)
        if let accessToken { claims["ath"] = .string(Base64URL.encode(Digest.sha256.hash(accessToken))) }
        if let nonce { claims["nonce"] = .string(nonce) }
        let publicJWK = JSONValue(parsing: Array(key.publicJWK.jsonString.utf8)) ?? .null
        return JWS.sign(
            payload: claims.jsonBytes(), key: key, type: type, additionalHeader: ["jwk": jwk ?? publicJWK])
    }

    /// A proof for `method` `url` with header `alg` `algorithm` that this key cannot have made:
    /// unsigned (`none`) or MACed with `secret` (`HS256`), as an attacker would try.
    public func forgedProof(_ method: String, _ url: String, algorithm: String, secret: [UInt8] = Array("k".utf8))
        -> String
    {
        var claims = JWTClaims(issuedAt: Date(), jwtID: SecureRandom.token())
        claims["htm"] = .string(method)
        claims["htu"] = .string(url)
        let publicJWK = JSONValue(parsing: Array(key.publicJWK.jsonString.utf8)) ?? .null
        let header: JSONValue = ["typ": "dpop+jwt", "alg": .string(algorithm), "jwk": publicJWK]
        let input = Base64URL.encode(Array(header.jsonString.utf8)) + "." + Base64URL.encode(claims.jsonBytes())
        let signature = algorithm == "none" ? [] : HMAC.authenticationCode(for: Array(input.utf8), key: secret)
        return input + "." + Base64URL.encode(signature)
    }
}

extension ProviderHarness {
    /// A token request with a `DPoP` header.
    public func token(_ form: [(String, String)], client: ClientCredentials, proof: String) async throws -> TestReply {
        try await request("POST", "/oauth/token", form: form, client: client, headers: ["DPoP": proof])
    }

    /// A resource request with the `DPoP` scheme (or `scheme`) and a proof.
    public func resource(_ path: String, token: String, scheme: String = "DPoP", proof: String?) async throws
        -> TestReply
    {
        var headers = ["Authorization": "\(scheme) \(token)"]
        if let proof { headers["DPoP"] = proof }
        return try await request("GET", path, headers: headers)
    }
}
