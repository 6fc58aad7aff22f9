import Foundation
import PorticoCrypto

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The demo app's side of OpenID Connect, done over real HTTP the way any third-party app
/// would: discovery, the token request with `client_secret_basic` and PKCE, the JWKS, ID-token
/// verification, and the Login-with-Amazon-shaped profile.
struct DemoRelyingParty: Sendable {
    /// The endpoints the discovery document names.
    struct Endpoints: Sendable {
        let authorization: String
        let token: String
        let jwks: String
    }

    /// What the token endpoint returned.
    struct Tokens: Sendable {
        let accessToken: String
        let idToken: String
        let scope: String?
        let expiresIn: Int64?
        let hasRefreshToken: Bool
    }

    /// The provider's issuer identifier.
    let issuer: String
    /// The demo app's `client_id` and secret.
    let clientID: String
    let clientSecret: String

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 15
        configuration.timeoutIntervalForResource = 30
        return URLSession(configuration: configuration)
    }()

    /// Reads `/.well-known/openid-configuration` and checks that it speaks for this issuer.
    func discover() async throws(DemoFlowError) -> Endpoints {
        let step = "discovery"
        let document = try await json(
            step: step, request: URLRequest(url: try url(issuer + "/.well-known/openid-configuration", step: step)))
        guard document["issuer"]?.stringValue == issuer else {
            throw .provider(step: step, detail: "the document's issuer is not \(issuer)")
        }
        guard let authorization = document["authorization_endpoint"]?.stringValue,
            let token = document["token_endpoint"]?.stringValue, let jwks = document["jwks_uri"]?.stringValue
        else {
            throw .provider(step: step, detail: "the document lacks authorization_endpoint, token_endpoint or jwks_uri")
        }
        return Endpoints(authorization: authorization, token: token, jwks: jwks)
    }

    /// Redeems `code` at the token endpoint with the PKCE verifier; `redirectURI` is nil for a
    /// code from FedCM, which is redeemed without one.
    func redeem(code: String, verifier: String, redirectURI: String?, at endpoint: String) async throws(DemoFlowError)
        -> Tokens
    {
        let step = "token request"
        var request = URLRequest(url: try url(endpoint, step: step))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let credentials = "\(FormEncoding.encode(clientID)):\(FormEncoding.encode(clientSecret))"
        request.setValue("Basic " + Data(credentials.utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        var fields = [("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier)]
        if let redirectURI { fields.append(("redirect_uri", redirectURI)) }
        request.httpBody = Data(FormEncoding.body(fields).utf8)
        let body = try await json(step: step, request: request)
        guard body["token_type"]?.stringValue?.lowercased() == "bearer",
            let accessToken = body["access_token"]?.stringValue
        else { throw .provider(step: step, detail: "the response has no bearer access_token") }
        guard let idToken = body["id_token"]?.stringValue else {
            throw .provider(step: step, detail: "the response has no id_token although openid was requested")
        }
        return Tokens(
            accessToken: accessToken, idToken: idToken, scope: body["scope"]?.stringValue,
            expiresIn: body["expires_in"]?.integerValue, hasRefreshToken: body["refresh_token"]?.stringValue != nil)
    }

    /// Verifies the ID token against the provider's JWKS: signature (RS256, this client's
    /// registered algorithm), issuer, audience, expiry, and the nonce of this sign-in.
    func verifyIDToken(_ token: String, nonce: String, jwksURL: String) async throws(DemoFlowError) -> JWTClaims {
        let step = "JWKS"
        let (data, _) = try await fetch(step: step, request: URLRequest(url: try url(jwksURL, step: step)))
        let verifier: JWSVerifier
        do {
            verifier = try JWSVerifier(keySet: JWKSet(json: String(decoding: data, as: UTF8.self)))
        } catch {
            throw .provider(step: step, detail: "the key set cannot be read: \(error)")
        }
        let claims: JWTClaims
        do {
            claims = try verifier.verifyJWT(
                token, algorithms: [.rs256], validator: JWTValidator(issuer: issuer, audience: clientID))
        } catch {
            throw .invalidIDToken("\(error)")
        }
        guard let presented = claims["nonce"]?.stringValue, ConstantTime.equals(presented, nonce) else {
            throw .invalidIDToken("the nonce is not the one this sign-in sent")
        }
        if claims.audience.count > 1, claims["azp"]?.stringValue != clientID {
            throw .invalidIDToken("several audiences but azp is not this app")
        }
        return claims
    }

    /// `GET /user/profile` with the access token.
    func profile(accessToken: String) async throws(DemoFlowError) -> [String: JSONValue] {
        let step = "profile request"
        var request = URLRequest(url: try url(issuer + "/user/profile", step: step))
        request.setValue("Bearer " + accessToken, forHTTPHeaderField: "Authorization")
        return try await json(step: step, request: request)
    }

    private func url(_ text: String, step: String) throws(DemoFlowError) -> URL {
        guard let url = URL(string: text) else { throw .provider(step: step, detail: "'\(text)' is not a URL") }
        return url
    }

    /// Sends `request` and returns a JSON object body of a 2xx answer.
    private func json(step: String, request: URLRequest) async throws(DemoFlowError) -> [String: JSONValue] {
        let (data, _) = try await fetch(step: step, request: request)
        guard let object = JSONValue(parsing: Array(data))?.objectValue else {
            throw .provider(step: step, detail: "the answer is not a JSON object")
        }
        return object
    }

    /// Sends `request`; anything but a 2xx answer becomes a ``DemoFlowError/provider(step:detail:)``
    /// that quotes the OAuth error when there is one.
    private func fetch(step: String, request: URLRequest) async throws(DemoFlowError) -> (Data, HTTPURLResponse) {
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await Self.session.data(for: request)
        } catch {
            throw .provider(step: step, detail: error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw .provider(step: step, detail: "not an HTTP answer") }
        guard (200..<300).contains(http.statusCode) else {
            var detail = "HTTP \(http.statusCode)"
            if let object = JSONValue(parsing: Array(data))?.objectValue, let code = object["error"]?.stringValue {
                detail += ": \(code)"
                if let description = object["error_description"]?.stringValue { detail += " (\(description))" }
            }
            throw .provider(step: step, detail: detail)
        }
        return (data, http)
    }
}

/// `application/x-www-form-urlencoded` encoding for request bodies and Basic credentials.
enum FormEncoding {
    /// Characters left as they are: RFC 3986 unreserved.
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `value` percent-encoded (spaces as %20, which every form parser accepts).
    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// `name=value&…` with both sides encoded.
    static func body(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
    }
}
