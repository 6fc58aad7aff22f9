import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// The account-link API a host app's backend calls (DESIGN, "Account link"):
///
/// - `POST /oauth/account-links` (form `access_token`, `host_user_id`): links the person the
///   access token speaks for to the host's own user → 201 `{"link_id", "user_id",
///   "host_user_id"}`; 200 with the same link when that pair is linked already; 409
///   `{"error": "link_conflict"}` when the host user or the person is linked to someone else.
///   The token must be live, issued to this host, and carry `account_link`.
/// - `GET /oauth/account-links?host_user_id=…` → 200 the link, or 404.
/// - `DELETE /oauth/account-links/{link_id}` → 204 after unbinding (``AccountUnlinking``); 404
///   for a link that is unknown or another host's (the same answer, so ids reveal nothing).
///
/// Every call authenticates the host as the token endpoint does (``ClientAuthenticator``:
/// Basic, or `client_secret_post` in a form body) and must be a confidential client: a public
/// one could be anybody. `user_id` is the subject the host sees (pairwise for a pairwise host),
/// never the account id behind it. Failures are OAuth JSON errors; nothing here is a 500.
struct AccountLinkEndpoint {
    /// The collection's path.
    static let path = "/oauth/account-links"

    /// Where links are kept.
    let store: any Store
    /// Host authentication, as at the token endpoint.
    let authenticator: ClientAuthenticator
    /// Reads the access tokens hosts present.
    let verifier: AccessTokenVerifier
    /// The subjects hosts see.
    let subjects: PairwiseSubjects
    /// How long access tokens live (how long an unbind must refuse the ones issued before it).
    let lifetimes: TokenLifetimes
    /// The clock.
    let now: @Sendable () -> Date
    /// The provider's issuer: the only audience of an access token a host may link with.
    let issuer: IssuerIdentifier

    /// The longest `host_user_id` accepted.
    static let maximumHostUserIDLength = 255

    /// Registers the three routes.
    func register(on router: Router, execution: RouteExecution) {
        execution.postAuthenticatingClients(Self.path, on: router) { request in
            OAuthEndpoint.respond { try create(request) }
        }
        execution.get(Self.path, on: router) { request in OAuthEndpoint.respond { try find(request) } }
        execution.add(.delete, Self.path + "/:link_id", on: router) { request in
            OAuthEndpoint.respond { try unbind(request) }
        }
    }

    // MARK: Handlers

    private func create(_ request: Request) throws -> Response {
        let parameters = try OAuthParameters(formOf: request)
        let host = try authenticateHost(request, parameters: parameters)
        let token = try parameters.required("access_token")
        let hostUserID = try Self.checkedHostUserID(try parameters.required("host_user_id"))
        // With the issuer: an access token meant for another resource server links nobody.
        let resource = ProtectedResource(store: store, verifier: verifier, subjects: subjects, issuer: issuer)
        let verified = try resource.verify(token)
        guard verified.clientID == host.id, verified.hasUser, verified.actorClientID == nil else {
            throw OAuthError.invalidToken("The access token was not issued to this host app for a person.")
        }
        let userID = try resource.admit(
            verified, acceptedScopes: [AccountLinkScope.name], challengeScope: AccountLinkScope.name
        ).1.id
        let now = now()
        let outcome: (AccountLink, created: Bool)
        do {
            outcome = try store.transaction { transaction in
                try link(hostUserID: hostUserID, to: userID, host: host, now: now, in: transaction)
            }
        } catch StoreError.duplicate {
            // Another request linked one side meanwhile: the same pair is the same link.
            guard let existing = try store.accountLink(hostClientID: host.id, hostUserID: hostUserID),
                existing.platformUserID == userID
            else { throw Self.conflict }
            outcome = (existing, false)
        }
        var response = OAuthEndpoint.json(try members(of: outcome.0, host: host))
        response.status = outcome.created ? .created : .ok
        return response
    }

    private func find(_ request: Request) throws -> Response {
        if !request.query.values(for: "client_secret").isEmpty {
            throw OAuthError.invalidRequest("Never send the client secret in the URL; use HTTP Basic.")
        }
        let host = try authenticateHost(request, parameters: OAuthParameters([:]))
        let values = request.query.values(for: "host_user_id")
        guard values.count <= 1 else { throw OAuthError.invalidRequest("The parameter host_user_id is repeated.") }
        guard let value = values.first, !value.isEmpty else {
            throw OAuthError.invalidRequest("The parameter host_user_id is missing.")
        }
        let hostUserID = try Self.checkedHostUserID(value)
        guard let link = try store.accountLink(hostClientID: host.id, hostUserID: hostUserID) else {
            throw Self.notFound
        }
        return OAuthEndpoint.json(try members(of: link, host: host))
    }

    private func unbind(_ request: Request) throws -> Response {
        let parameters = OAuthParameters.isForm(request) ? try OAuthParameters(formOf: request) : OAuthParameters([:])
        let host = try authenticateHost(request, parameters: parameters)
        guard let linkID = request.pathParameters["link_id"], !linkID.isEmpty else { throw Self.notFound }
        let now = now()
        let lifetime = lifetimes.accessToken
        let unbound = try store.transaction { transaction -> Bool in
            guard let link = try transaction.accountLink(id: linkID), link.hostClientID == host.id else {
                return false
            }
            return try AccountUnlinking.unbind(
                link, by: .host, now: now, accessTokenLifetime: lifetime, in: transaction)
        }
        guard unbound else { throw Self.notFound }
        var response = Response(status: .noContent)
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    // MARK: Parts

    /// Links inside one transaction; the link and whether it is new.
    private func link(
        hostUserID: String, to userID: String, host: Client, now: Date, in transaction: any StoreTransaction
    ) throws -> (AccountLink, created: Bool) {
        if let existing = try transaction.accountLink(hostClientID: host.id, hostUserID: hostUserID) {
            guard existing.platformUserID == userID else { throw Self.conflict }
            return (existing, false)
        }
        guard try transaction.accountLink(hostClientID: host.id, platformUserID: userID) == nil else {
            throw Self.conflict
        }
        let link = AccountLink(hostClientID: host.id, hostUserID: hostUserID, platformUserID: userID, createdAt: now)
        try transaction.insert(link)
        try transaction.append(
            AuditEvent(
                occurredAt: now, actor: host.id, action: "account_link.create", subject: host.id,
                details: (["link_id": .string(link.id), "user_id": .string(userID)] as JSONValue).jsonString))
        return (link, true)
    }

    /// The host, which must have proved itself with its secret.
    private func authenticateHost(_ request: Request, parameters: OAuthParameters) throws -> Client {
        let client = try authenticator.authenticate(request, parameters: parameters)
        guard client.isConfidential else {
            throw OAuthError.invalidClient("A host app authenticates with its client secret.")
        }
        return client.client
    }

    /// The JSON members of `link` as `host` sees it.
    private func members(of link: AccountLink, host: Client) throws -> [String: JSONValue] {
        [
            "link_id": .string(link.id),
            "user_id": .string(try subjects.subject(for: link.platformUserID, client: host)),
            "host_user_id": .string(link.hostUserID),
        ]
    }

    /// A host's user id: 1 to ``maximumHostUserIDLength`` bytes, no control characters.
    private static func checkedHostUserID(_ value: String) throws(OAuthError) -> String {
        guard value.utf8.count <= maximumHostUserIDLength,
            !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw .invalidRequest(
                "The host_user_id must be at most \(maximumHostUserIDLength) bytes without control characters.")
        }
        return value
    }

    static let conflict = OAuthError(
        code: "link_conflict", description: "The host user or the person is already linked to someone else.",
        status: 409)

    static let notFound = OAuthError(
        code: "not_found", description: "No such account link for this host app.", status: .notFound)
}
