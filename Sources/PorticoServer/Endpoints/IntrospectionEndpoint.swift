import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `POST /oauth/introspect` (RFC 7662): tells a resource server whether a token is active and
/// what it grants.
///
/// Only resource servers may ask: confidential clients registered with `--introspection`
/// (RFC 7662 §4: the server decides which protected resources may call it). Otherwise any app
/// holding someone's token could learn whose it is and what it grants. A failed client
/// authentication (or a public client, which cannot authenticate) is a 401 `invalid_client`
/// as at the token endpoint (§2.3); an authenticated client that is not a resource server is
/// a 403 `unauthorized_client`: its credentials are fine, it is just not allowed this call,
/// and answering `{"active":false}` would tell its developer a lie about valid tokens. A refresh
/// token is reported active only to the client it was issued to. Anything not active — unknown,
/// expired, revoked, rotated, or its account disabled — is just `{"active":false}`.
struct IntrospectionEndpoint {
    /// Where revocations, refresh tokens and people are read.
    let store: any Store
    /// Client authentication, as at the token endpoint.
    let authenticator: ClientAuthenticator
    /// The shared, caching verifier.
    let verifier: AccessTokenVerifier
    /// `iss` in the answer.
    let issuer: IssuerIdentifier
    /// The clock.
    let now: @Sendable () -> Date
    /// Finds the person behind a pairwise `sub`.
    var subjects: PairwiseSubjects? = nil

    private static let inactive: [String: JSONValue] = ["active": false]

    /// Registers the route.
    func register(on router: Router, execution: RouteExecution) {
        execution.postAuthenticatingClients("/oauth/introspect", on: router) { request in handle(request) }
    }

    /// Answers one request.
    func handle(_ request: Request) -> Response {
        OAuthEndpoint.respond {
            let parameters = try OAuthParameters(formOf: request)
            let client = try authenticator.authenticate(request, parameters: parameters)
            guard client.isConfidential else {
                throw OAuthError.invalidClient("Only confidential clients may introspect tokens.")
            }
            guard client.client.mayIntrospect else {
                throw OAuthError(
                    code: "unauthorized_client",
                    description: "Only clients registered as resource servers (--introspection) may introspect tokens.",
                    status: .forbidden)
            }
            let token = try parameters.required("token")
            let members =
                PresentedToken.looksLikeJWT(token)
                ? try accessTokenMembers(token)
                : try refreshTokenMembers(token, client: client.client)
                    ?? deviceSecretMembers(token, client: client.client)
            return OAuthEndpoint.json(members ?? Self.inactive)
        }
    }

    private func accessTokenMembers(_ token: String) throws -> [String: JSONValue]? {
        guard let verified = try? verifier.verify(token) else { return nil }
        let sector = verified.hasUser ? try subjects?.pairwiseSector(ofClientID: verified.clientID) : nil
        let active = try store.read { transaction -> Bool in
            guard verified.hasUser else { return try !verifier.isRevoked(verified, in: transaction) }
            let userID = try PairwiseSubjects.userID(subject: verified.subject, sector: sector, in: transaction)
            guard let userID, try !verifier.isRevoked(verified, userID: userID, in: transaction),
                let user = try transaction.user(id: userID)
            else { return false }
            return !user.isDisabled
        }
        guard active else { return nil }
        var members: [String: JSONValue] = [
            "active": true, "scope": .string(verified.scopes.joined(separator: " ")),
            "client_id": .string(verified.clientID), "sub": .string(verified.subject),
            "exp": .integer(TokenIssuer.seconds(verified.expiresAt)),
            "iat": .integer(TokenIssuer.seconds(verified.issuedAt)), "token_type": "Bearer",
            "iss": .string(issuer.current), "aud": .array(verified.audience.map(JSONValue.string)),
            "jti": .string(verified.tokenID),
        ]
        // A resource server checks the proof against the key itself (RFC 9449 §6.2).
        if let key = verified.confirmationKey {
            members["token_type"] = "DPoP"
            members["cnf"] = ["jkt": .string(key)]
        }
        return members
    }

    /// A Native SSO device secret, active while its session lives; shown only to apps of the
    /// session's SSO group.
    private func deviceSecretMembers(_ token: String, client: Client) throws -> [String: JSONValue]? {
        let now = now()
        let members = try store.read { transaction -> [String: JSONValue]? in
            guard let session = try transaction.deviceSession(secret: token), session.ssoGroup == client.ssoGroup,
                try NativeSSO.isAlive(session, now: now, in: transaction),
                let user = try transaction.user(id: session.userID), !user.isDisabled
            else { return nil }
            return [
                "active": true, "token_type": "device_secret", "sid": .string(session.id), "sub": .string(user.id),
                "scope": .string(session.scopes.joined(separator: " ")),
                "iat": .integer(TokenIssuer.seconds(session.createdAt)), "iss": .string(issuer.current),
            ]
        }
        return try withClientSubject(members, client: client)
    }

    /// `members` with `sub` as `client` knows the person (a pairwise subject for such clients),
    /// computed after the read transaction, since the first use of the salt writes.
    private func withClientSubject(_ members: [String: JSONValue]?, client: Client) throws -> [String: JSONValue]? {
        guard var members, let userID = members["sub"]?.stringValue, let subjects else { return members }
        members["sub"] = .string(try subjects.subject(for: userID, client: client))
        return members
    }

    private func refreshTokenMembers(_ token: String, client: Client) throws -> [String: JSONValue]? {
        let now = now()
        let clientID = client.id
        let members = try store.read { transaction -> [String: JSONValue]? in
            guard let record = try RefreshTokenPolicy.token(token, in: transaction), record.rotatedAt == nil,
                now < record.expiresAt,
                let family = try transaction.refreshFamily(id: record.familyID), !family.isRevoked,
                family.clientID == clientID, let user = try transaction.user(id: family.userID), !user.isDisabled
            else { return nil }
            return [
                "active": true, "scope": .string(family.scopes.joined(separator: " ")),
                "client_id": .string(family.clientID), "sub": .string(family.userID),
                "exp": .integer(TokenIssuer.seconds(record.expiresAt)),
                "iat": .integer(TokenIssuer.seconds(record.issuedAt)), "token_type": "refresh_token",
                "iss": .string(issuer.current), "aud": .string(family.clientID),
            ]
        }
        return try withClientSubject(members, client: client)
    }
}
