import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Token exchange's URIs, as the tests send them.
enum ExchangeURI {
    static let grant = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let idToken = "urn:ietf:params:oauth:token-type:id_token"
    static let accessToken = "urn:ietf:params:oauth:token-type:access_token"
    static let refreshToken = "urn:ietf:params:oauth:token-type:refresh_token"
    static let deviceSecret = "urn:openid:params:token-type:device-secret"
    static let oktaDeviceSecret = "urn:x-oath:params:oauth:token-type:device-secret"
}

/// A code stored as the authorization endpoint stores it, with its PKCE verifier.
struct ExchangeCode: Sendable {
    let code: String
    let verifier: String
    let redirectURI: String
}

/// What the first app of a group got from its sign-in with `device_sso`.
struct SSOSignIn {
    let reply: TestReply
    var accessToken: String { reply.string("access_token") ?? "" }
    var refreshToken: String { reply.string("refresh_token") ?? "" }
    var idToken: String { reply.string("id_token") ?? "" }
    var deviceSecret: String { reply.string("device_secret") ?? "" }
}

extension ProviderHarness {
    /// The test client secret.
    static let exchangeSecret = "s3cret: with &/+=% and ü"

    /// An app of `group` (or of none), registered for codes, refreshes and token exchange.
    func addExchangeClient(
        name: String = "Vendor App", group: String? = "vendor", isPublic: Bool = false,
        scopes: [String] = ["openid", "profile", "email", "device_sso"],
        grants: [String] = ["authorization_code", "refresh_token", ExchangeURI.grant], resources: [String] = [],
        subjectType: SubjectType = .public, sector: String? = nil,
        redirectURI: String = "https://shop.example/callback",
        introspection: Bool = false
    ) throws -> Client {
        var client = Client(
            name: name, type: isPublic ? .public : .confidential, secret: isPublic ? nil : Self.exchangeSecret,
            redirectURIs: [redirectURI], allowedScopes: scopes, allowedGrantTypes: grants)
        client.ssoGroup = group
        client.resources = resources
        client.subjectType = subjectType
        client.sectorIdentifier = subjectType == .pairwise ? (sector ?? URL(string: redirectURI)?.host) : nil
        client.mayIntrospect = introspection
        try store.insert(client)
        return client
    }

    /// How `client` authenticates.
    func exchangeCredentials(_ client: Client) -> ClientCredentials {
        client.type == .public ? .id(client.id) : .basic(id: client.id, secret: Self.exchangeSecret)
    }

    /// A code as the authorization endpoint stores it, from the browser session `sessionHashedID`
    /// and for `resource`, with the person's consent to `scopes` recorded as the consent page does.
    func issueExchangeCode(
        for client: Client, user: UserRecord, scopes: [String], sessionHashedID: String? = nil, resource: String? = nil,
        now: Date? = nil
    ) throws -> ExchangeCode {
        let now = now ?? clock.now
        let code = SecureRandom.token()
        let verifier = PKCE.makeVerifier()
        var stored = AuthorizationCode(
            code: code, clientID: client.id, userID: user.id, redirectURI: client.redirectURIs[0], scopes: scopes,
            codeChallenge: PKCE.challenge(for: verifier), authTime: now, sessionHashedID: sessionHashedID,
            createdAt: now, expiresAt: now.addingTimeInterval(60))
        stored.resource = resource
        try store.insert(stored)
        _ = try store.transaction {
            try ConsentPolicy().grant(userID: user.id, clientID: client.id, scopes: Set(scopes), in: $0, now: now)
        }
        return ExchangeCode(code: code, verifier: verifier, redirectURI: client.redirectURIs[0])
    }

    /// Redeems `code` as the client would.
    func redeem(_ code: ExchangeCode, client: ClientCredentials) async throws -> TestReply {
        try await token(
            [
                ("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", code.redirectURI),
                ("code_verifier", code.verifier),
            ], client: client)
    }

    /// Signs `user` in to `client` with `device_sso` and returns what the app got.
    func ssoSignIn(
        _ user: UserRecord, to client: Client, scopes: [String] = ["openid", "profile", "device_sso"],
        sessionHashedID: String? = nil, now: Date? = nil
    ) async throws -> SSOSignIn {
        let code = try issueExchangeCode(
            for: client, user: user, scopes: scopes, sessionHashedID: sessionHashedID, now: now)
        let reply = try await redeem(code, client: exchangeCredentials(client))
        try #require(reply.status == 200, "token endpoint said \(reply.status) \(reply.text)")
        return SSOSignIn(reply: reply)
    }

    /// A token exchange request; `nil` leaves a parameter out.
    func exchange(
        as client: Client, subjectToken: String?, subjectTokenType: String?, actorToken: String? = nil,
        actorTokenType: String? = nil, audience: String? = nil, resource: String? = nil, scope: String? = nil,
        requestedTokenType: String? = nil, credentials: ClientCredentials? = nil
    ) async throws -> TestReply {
        var form = [("grant_type", ExchangeURI.grant)]
        let optional: [(String, String?)] = [
            ("subject_token", subjectToken), ("subject_token_type", subjectTokenType), ("actor_token", actorToken),
            ("actor_token_type", actorTokenType), ("audience", audience), ("resource", resource), ("scope", scope),
            ("requested_token_type", requestedTokenType),
        ]
        for (name, value) in optional { if let value { form.append((name, value)) } }
        return try await token(form, client: credentials ?? exchangeCredentials(client))
    }

    /// The Native SSO exchange of `signIn` by `client`.
    func nativeSSO(
        _ signIn: SSOSignIn, as client: Client, actorTokenType: String = ExchangeURI.deviceSecret,
        scope: String? = nil
    ) async throws -> TestReply {
        try await exchange(
            as: client, subjectToken: signIn.idToken, subjectTokenType: ExchangeURI.idToken,
            actorToken: signIn.deviceSecret, actorTokenType: actorTokenType, audience: issuer, scope: scope)
    }

    /// The verified claims of a token this provider signed (expired or not).
    func claims(of token: String) async throws -> JWTClaims {
        try await jwksVerifier().verify(token, algorithms: [.rs256, .es256, .edDSA]).claims()
    }
}

extension TestReply {
    /// The `error` member of an error answer.
    var error: String? { string("error") }
}
