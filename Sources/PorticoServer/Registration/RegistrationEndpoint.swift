import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// Dynamic client registration: `POST /oauth/register` (RFC 7591) and the client
/// configuration endpoint `/oauth/register/:client_id` (RFC 7592: GET, PUT, DELETE).
///
/// Registration needs an initial access token from `portico registration-token create`
/// (`Authorization: Bearer`), unless the server runs with `--open-registration`. The metadata
/// goes through ``ClientRegistration``, the path `portico client add` takes, and the token's
/// use, the client and its registration access token are written in one transaction, so a
/// refused registration changes nothing. The configuration endpoint answers 401 alike for an
/// unknown token and for another client's, so it reveals no client's existence.
struct RegistrationEndpoint {
    /// Where clients and tokens are kept.
    let store: any Store
    /// The issuer, which prefixes `registration_client_uri` (known once the port is bound).
    let issuer: IssuerIdentifier
    /// Whether registration without an initial access token is allowed.
    let isOpen: Bool
    /// Whether back-channel logout URIs may name loopback (`--allow-loopback-callbacks`).
    let allowsLoopbackCallbacks: Bool
    /// Clients kept in memory by the other endpoints: forgotten here on change.
    let clients: ClientCache
    /// The clock.
    let now: @Sendable () -> Date

    /// The registration endpoint's path.
    static let path = "/oauth/register"

    /// Registers the routes.
    func register(on router: Router, execution: RouteExecution) {
        execution.post(Self.path, on: router) { handleRegistration($0) }
        let configuration = Self.path + "/:client_id"
        execution.add(.get, configuration, on: router) { handleConfiguration($0) }
        execution.add(.put, configuration, on: router) { handleConfiguration($0) }
        execution.add(.delete, configuration, on: router) { handleConfiguration($0) }
    }

    /// `POST /oauth/register`.
    func handleRegistration(_ request: Request) -> Response {
        OAuthEndpoint.respond {
            let initialToken = try presentedToken(request, required: !isOpen)
            if initialToken == nil {
                let throttle = AttemptThrottle(store: store, now: now)
                let limits = AttemptThrottle.openRegistrationLimits(address: request.remoteAddress)
                if case .refused(let wait) = try throttle.attempt(limits) { throw Self.tooMany(retryAfter: wait) }
            }
            let metadata = try ClientMetadata(json: request.body, allowsLoopbackCallbacks: allowsLoopbackCallbacks)
            let accessToken = SecureRandom.token()
            let now = now()
            let registered: RegisteredClient
            do throws(AdminError) {
                registered = try metadata.registration.register(
                    in: store, clientID: RecordIdentifier.random(), actor: "registration"
                ) { transaction, client in
                    if let initialToken, try !consumes(initialToken, in: transaction, now: now) {
                        throw AdminError.notFound("initial access token")
                    }
                    try transaction.setRegistrationAccessToken(
                        clientID: client.id, hash: SecretHash.digest(accessToken), authMethod: metadata.authMethod)
                }
            } catch .notFound {
                throw Self.badToken
            } catch {
                throw ClientMetadata.refusal(error)
            }
            return answer(registered, authMethod: metadata.authMethod, accessToken: accessToken, status: .created)
        }
    }

    /// `GET`, `PUT` and `DELETE` on `/oauth/register/:client_id`.
    func handleConfiguration(_ request: Request) -> Response {
        OAuthEndpoint.respond {
            guard let token = try presentedToken(request, required: true),
                let clientID = request.pathParameters["client_id"],
                let registration = try store.transaction({
                    try $0.registration(accessTokenHash: SecretHash.digest(token))
                }),
                ConstantTime.equals(Array(registration.clientID.utf8), Array(clientID.utf8)),
                let client = try store.transaction({ try $0.client(id: clientID) })
            else { throw Self.badToken }
            switch request.method {
            case .get:
                return answer(
                    RegisteredClient(client: client, secret: nil), authMethod: registration.authMethod,
                    accessToken: nil, status: .ok)
            case .delete:
                try store.transaction { transaction in
                    _ = try ClientRemoval.remove(id: clientID, actor: "registration", now: now(), in: transaction)
                }
                clients.forget(id: clientID)
                var response = Response(status: .noContent)
                response.headers["Cache-Control"] = "no-store"
                return response
            default:
                return try replace(client, with: request)
            }
        }
    }

    /// RFC 7592 §2.2: the metadata replaced as a whole, checked as a new registration is; the
    /// registration access token rotated.
    private func replace(_ client: Client, with request: Request) throws -> Response {
        let metadata = try ClientMetadata(json: request.body, allowsLoopbackCallbacks: allowsLoopbackCallbacks)
        guard let object = JSONValue(parsing: request.body)?.objectValue,
            object["client_id"]?.stringValue == client.id
        else {
            throw ClientMetadata.invalid("The body must carry the client's client_id (RFC 7592 §2.2).")
        }
        if let secret = object["client_secret"] {
            guard let text = secret.stringValue, client.verifiesSecret(text) else {
                throw ClientMetadata.invalid("client_secret does not match the client's secret.")
            }
        }
        let accessToken = SecureRandom.token()
        let replaced: RegisteredClient
        do {
            replaced = try store.transaction { transaction in
                let replaced = try metadata.registration.replace(client, in: transaction, store: store)
                try transaction.setRegistrationAccessToken(
                    clientID: client.id, hash: SecretHash.digest(accessToken), authMethod: metadata.authMethod)
                try transaction.append(AuditEvent(actor: "registration", action: "client.update", subject: client.id))
                return replaced
            }
        } catch let error as AdminError {
            throw ClientMetadata.refusal(error)
        }
        clients.forget(id: client.id)
        return answer(replaced, authMethod: metadata.authMethod, accessToken: accessToken, status: .ok)
    }

    /// The client's metadata with what only this answer carries: a new secret, a new
    /// registration access token, the configuration URI.
    private func answer(_ registered: RegisteredClient, authMethod: String, accessToken: String?, status: HTTPStatus)
        -> Response
    {
        var members = ClientMetadata.members(of: registered.client, authMethod: authMethod)
        if let secret = registered.secret { members["client_secret"] = .string(secret) }
        if let accessToken { members["registration_access_token"] = .string(accessToken) }
        members["registration_client_uri"] = .string(issuer.current + Self.path + "/" + registered.client.id)
        var response = OAuthEndpoint.json(members)
        response.status = status
        return response
    }

    /// Uses the initial access token `presented` once, if it is one. pyoidc (`oic`'s
    /// `Client.register`) sends a token that is not a JWT base64-encoded, so the decoded form
    /// is tried too; knowing it still takes knowing the token.
    private func consumes(_ presented: String, in transaction: any StoreTransaction, now: Date) throws -> Bool {
        if try transaction.consumeInitialAccessToken(hash: SecretHash.digest(presented), now: now) { return true }
        guard let data = Data(base64Encoded: presented), let decoded = String(data: data, encoding: .utf8),
            !decoded.isEmpty, decoded != presented
        else { return false }
        return try transaction.consumeInitialAccessToken(hash: SecretHash.digest(decoded), now: now)
    }

    /// The bearer token of `request`; nil when there is none and none is `required`.
    private func presentedToken(_ request: Request, required: Bool) throws(OAuthError) -> String? {
        guard request.headers["Authorization"] != nil || required else { return nil }
        guard let header = request.headers["Authorization"],
            let token = ProtectedResource.credentials(in: header, scheme: "bearer"), !token.isEmpty
        else { throw Self.badToken }
        return token
    }

    /// 429 to an address past its open registrations (``AttemptThrottle/openRegistrationLimits(address:)``),
    /// with `Retry-After`; RFC 7591 names no error for it, so the code is RFC 6749's
    /// `temporarily_unavailable`.
    static func tooMany(retryAfter wait: TimeInterval) -> OAuthError {
        let seconds = Int(wait.rounded(.up))
        var error = OAuthError(
            code: "temporarily_unavailable",
            description: "Too many registrations from this address; try again in \(seconds) seconds.",
            status: .tooManyRequests)
        error.headers.append(("Retry-After", String(seconds)))
        return error
    }

    /// The one answer to a missing, unknown, used-up, expired or another client's token.
    static let badToken = OAuthError.invalidToken("The access token is missing, unknown, used up or expired.")
}
