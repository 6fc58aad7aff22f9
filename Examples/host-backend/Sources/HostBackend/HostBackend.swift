import Foundation
import PorticoCrypto
import PorticoHTTP

/// The host app's own backend, on `PorticoHTTP`: the host's people and their sessions, the
/// account link with the platform, the auth model its app hands mini-programs, the mini-program
/// delegation exchange, and back-channel logout.
///
/// The host app talks to it with a host session (`Authorization: Bearer`, from `POST
/// /host/sessions`, the stand-in for the host's own sign-in); the platform talks to it at
/// `POST /backchannel-logout`. It holds the client secret, so the code is redeemed here, never
/// in the app.
public final class HostBackend: Sendable {
    /// Where the platform is and who the host is there.
    public let platform: PlatformClient
    /// The host's people.
    public let users: HostUserTable
    private let logoutTokens: LogoutTokenVerifier
    private let securityEvents: SecurityEventVerifier
    private let redeemed = RedeemedCodes()
    private let server: HTTPServer

    /// A backend on `host:port` (0: any free port) keeping its table in `dataDirectory`.
    public init(
        platform: PlatformClient, dataDirectory: URL, host: String = "127.0.0.1", port: UInt16 = 8090,
        logRequests: Bool = false
    ) throws {
        self.platform = platform
        users = try HostUserTable(directory: dataDirectory)
        logoutTokens = LogoutTokenVerifier(platform: platform)
        securityEvents = SecurityEventVerifier(platform: platform)
        let router = Router()
        server = HTTPServer(
            configuration: ServerConfiguration(host: host, port: port, threads: 2, logRequests: logRequests),
            router: router)
        routes(router)
    }

    /// Starts listening.
    public func start() throws { try server.start() }

    /// Stops listening.
    public func shutdown() { server.shutdown(timeout: .seconds(2)) }

    /// Serves until SIGINT or SIGTERM.
    public func runUntilTerminated() { server.runUntilTerminated() }

    /// The port it listens on.
    public var port: UInt16 { server.port }

    /// The URL of its Shared Signals push endpoint (RFC 8935), for its stream.
    public var securityEventsURI: String { "http://127.0.0.1:\(port)\(Self.securityEventsPath)" }

    /// Where the platform pushes SETs.
    public static let securityEventsPath = "/ssf/events"

    /// The events after which a linked person's host session and mini-program state end.
    public static let endingEvents: Set<String> = [
        "https://schemas.openid.net/secevent/caep/event-type/session-revoked",
        "https://schemas.openid.net/secevent/risc/event-type/account-disabled",
        "https://schemas.openid.net/secevent/risc/event-type/account-purged",
    ]

    /// The URL of its back-channel logout endpoint, to register with `--backchannel-logout-uri`.
    public var backchannelLogoutURI: String { "http://127.0.0.1:\(port)/backchannel-logout" }

    private func routes(_ router: Router) {
        router.get("/healthz") { _ in .json(raw: #"{"status":"ok"}"#) }
        router.post("/host/sessions") { [users] request in
            Self.answer {
                guard let name = try request.form()["user"]?.trimmingCharacters(in: .whitespaces), !name.isEmpty,
                    name.count <= 100
                else { throw HostBackendError(.badRequest, "invalid_request", "give a user name (form `user`)") }
                let (user, session) = try users.signIn(name: name)
                return try .json(["host_user_id": user.hostUserID, "name": user.name, "session": session])
            }
        }
        router.postAsync("/host/account-link") { request in await Self.answerAsync { try await self.link(request) } }
        router.postAsync("/host/par") { request in await Self.answerAsync { try await self.push(request) } }
        router.get("/host/account-link") { request in
            Self.answer {
                let user = try self.signedIn(request)
                guard let model = Self.model(of: user) else {
                    throw HostBackendError(.notFound, "not_linked", "no platform sign-in is linked for this user")
                }
                return try .json(model)
            }
        }
        router.deleteAsync("/host/account-link") { request in await Self.answerAsync { try await self.unbind(request) }
        }
        router.postAsync("/host/mini-programs/:client_id/token") { request in
            await Self.answerAsync { try await self.miniProgramToken(request) }
        }
        router.postAsync(Self.securityEventsPath) { request in await self.securityEvent(request) }
        router.postAsync("/backchannel-logout") { request in
            var response = await Self.answerAsync { try await self.backchannelLogout(request) }
            response.headers.add("Cache-Control", value: "no-store")
            return response
        }
    }

    /// Redeems the app's code, links the person to the host user, and answers the auth model.
    ///
    /// With `mini_program` (a mini-program's client id) the model carries that mini-program's
    /// token, exchanged from the person's (RFC 8693), and the person's own token stays here; with
    /// `dpop` (the app's proof for the token endpoint) the exchange carries it as its `DPoP`
    /// header, so the token is bound to the app's installation key. When the provider wants a
    /// nonce, the answer is 400 `use_dpop_nonce` with its `DPoP-Nonce`: the app signs a new
    /// proof and sends the same code again, which is not redeemed twice (``RedeemedCodes``).
    /// Without `mini_program` the model carries the person's token, as older apps expect.
    private func link(_ request: Request) async throws -> Response {
        let user = try signedIn(request)
        let form = try request.form()
        guard let code = form["code"], let verifier = form["code_verifier"], let redirectURI = form["redirect_uri"],
            !code.isEmpty, !verifier.isEmpty, !redirectURI.isEmpty
        else {
            throw HostBackendError(.badRequest, "invalid_request", "code, code_verifier and redirect_uri are needed")
        }
        let miniProgram = form["mini_program"].flatMap { $0.isEmpty ? nil : $0 }
        let proof = try Self.forwardableProof(form["dpop"])
        var linked = user
        if !redeemed.wasRedeemed(code, for: user.hostUserID) || user.link?.accessToken == nil {
            linked = try await redeemAndLink(code: code, verifier: verifier, redirectURI: redirectURI, for: user)
            redeemed.remember(code, for: user.hostUserID)
        }
        guard let miniProgram else { return try .json(Self.model(of: linked)) }
        guard let link = linked.link, let accessToken = link.accessToken else {
            throw HostBackendError(.notFound, "not_linked", "link the platform account first")
        }
        let token = try await exchange(accessToken, for: miniProgram, proof: proof)
        var model: [String: JSONValue] = [
            "uid": .string(link.platformUserID), "access_token": token.json["access_token"] ?? "",
            "host_user_id": .string(linked.hostUserID), "token_type": token.json["token_type"] ?? "Bearer",
        ]
        // Clamped to a year: a provider's answer never makes the sum overflow.
        if let expiresIn = token.json["expires_in"]?.integerValue {
            model["expires_at"] = .integer(Int64(Date().timeIntervalSince1970) + min(max(expiresIn, 0), 31_536_000))
        }
        return .json(raw: JSONValue.object(model).jsonString)
    }

    /// Redeems the code with the host's secret (an unbound token: it never leaves this backend,
    /// which refreshes it without the device) and links the person to `user`.
    private func redeemAndLink(code: String, verifier: String, redirectURI: String, for user: HostUserTable.User)
        async throws -> HostUserTable.User
    {
        let tokens = try await platform.redeem(code: code, verifier: verifier, redirectURI: redirectURI)
        guard tokens.status == 200, let accessToken = tokens.string("access_token") else {
            throw HostBackendError(
                .badRequest, tokens.string("error") ?? "invalid_grant",
                "the platform did not redeem the code: \(tokens.string("error_description") ?? "status \(tokens.status)")"
            )
        }
        let scopes = (tokens.string("scope") ?? "").split(separator: " ")
        guard scopes.contains("account_link") else {
            throw HostBackendError(.forbidden, "insufficient_scope", "the person did not grant account_link")
        }
        let expiresAt = tokens.json["expires_in"]?.integerValue.map { Date().addingTimeInterval(TimeInterval($0)) }
        let linked = try await platform.link(accessToken: accessToken, hostUserID: user.hostUserID)
        guard linked.status == 200 || linked.status == 201, let linkID = linked.string("link_id"),
            let platformUserID = linked.string("user_id")
        else {
            if linked.status == 409 {
                throw HostBackendError(
                    HTTPStatus(rawValue: 409), "link_conflict",
                    "this platform account or host user is already linked to someone else")
            }
            throw HostBackendError(
                HTTPStatus(rawValue: 502), linked.string("error") ?? "platform_error",
                "the platform did not link the account (status \(linked.status))")
        }
        let link = HostUserTable.Link(
            linkID: linkID, platformUserID: platformUserID, accessToken: accessToken, expiresAt: expiresAt)
        try users.setLink(link, for: user.hostUserID)
        var updated = user
        updated.link = link
        return updated
    }

    /// The app's proof as it may go into a header: a compact JWS (three base64url parts), at
    /// most 8 KiB; nil when none was sent. Anything else is refused before the platform is
    /// asked, so no line break or other header ever rides along.
    static func forwardableProof(_ value: String?) throws -> String? {
        guard let value, !value.isEmpty else { return nil }
        // Three parts of strict base64url (PorticoCrypto's decoder: no padding, no white space).
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard value.utf8.count <= 8192, parts.count == 3, parts.allSatisfy({ Base64URL.decode($0) != nil }) else {
            throw HostBackendError(.badRequest, "invalid_request", "dpop must be a compact JWS (a DPoP proof)")
        }
        return value
    }

    /// A mini-program's token from the person's, with the app's proof forwarded when it sent
    /// one; the provider's `use_dpop_nonce` is handed back with its nonce.
    private func exchange(_ accessToken: String, for miniProgram: String, proof: String?) async throws
        -> PlatformClient.Reply
    {
        let reply = try await platform.exchange(accessToken, audience: miniProgram, proof: proof)
        if reply.wantsDPoPNonce {
            var error = HostBackendError(
                .badRequest, "use_dpop_nonce", "the platform wants a DPoP nonce: sign a new proof with DPoP-Nonce")
            error.dpopNonce = reply.dpopNonce
            throw error
        }
        guard reply.status == 200, reply.string("access_token") != nil else {
            throw HostBackendError(
                reply.status == 401 ? .unauthorized : .badRequest, reply.string("error") ?? "invalid_request",
                reply.string("error_description") ?? "the platform refused the exchange (status \(reply.status))")
        }
        return reply
    }

    /// Pushes the signed-in host app's authorization request to the platform's PAR endpoint with
    /// the host client's credentials, and relays the answer: 201 with `request_uri`, or the
    /// platform's own error and words.
    private func push(_ request: Request) async throws -> Response {
        _ = try signedIn(request)
        let reply = try await platform.push(try request.form().items)
        guard reply.status == 201, let requestURI = reply.string("request_uri") else {
            throw HostBackendError(
                reply.status == 401 ? .unauthorized : .badRequest, reply.string("error") ?? "invalid_request",
                reply.string("error_description") ?? "the platform refused the request (status \(reply.status))")
        }
        var response = Response.json(
            raw: JSONValue.object([
                "request_uri": .string(requestURI), "expires_in": reply.json["expires_in"] ?? .integer(60),
            ]).jsonString)
        response.status = .created
        return response
    }

    /// Unbinds at the platform (which revokes the grant and every mini-program token), then forgets the link.
    private func unbind(_ request: Request) async throws -> Response {
        let user = try signedIn(request)
        guard let link = user.link else { return Response(status: .noContent) }
        let reply = try await platform.unlink(link.linkID)
        // 404: the person already unbound in Your Account; the link is gone either way.
        guard reply.status == 204 || reply.status == 200 || reply.status == 404 else {
            throw HostBackendError(
                HTTPStatus(rawValue: 502), "platform_error", "the platform did not unbind (status \(reply.status))")
        }
        try users.setLink(nil, for: user.hostUserID)
        return Response(status: .noContent)
    }

    /// Exchanges the person's access token for a token of the mini-program in the path; with
    /// form `dpop` (the app's proof) the token is bound to the app's key, and a wanted nonce is
    /// handed back as in ``link(_:)``.
    private func miniProgramToken(_ request: Request) async throws -> Response {
        let user = try signedIn(request)
        guard let miniProgram = request.pathParameters["client_id"], !miniProgram.isEmpty else {
            throw HostBackendError(.badRequest, "invalid_request", "name the mini-program's client id")
        }
        guard let accessToken = user.link?.accessToken else {
            throw HostBackendError(.notFound, "not_linked", "link the platform account first")
        }
        let proof = try Self.forwardableProof(try request.form()["dpop"])
        let reply = try await exchange(accessToken, for: miniProgram, proof: proof)
        var body: [String: JSONValue] = ["token_type": reply.json["token_type"] ?? "Bearer"]
        for name in ["access_token", "expires_in", "scope", "issued_token_type"] {
            if let value = reply.json[name] { body[name] = value }
        }
        return .json(raw: JSONValue.object(body).jsonString)
    }

    /// Verifies a logout token and forgets that person's model (OIDC Back-Channel Logout §2.8).
    private func backchannelLogout(_ request: Request) async throws -> Response {
        guard let token = try request.form()["logout_token"], !token.isEmpty else {
            throw HostBackendError(.badRequest, "invalid_request", "no logout_token")
        }
        let claims: JWTClaims
        do { claims = try await logoutTokens.verify(token) } catch {
            // The provider retries or gives up; the operator should see why it was refused.
            FileHandle.standardError.write(Data("portico-host-backend: refused a logout token: \(error)\n".utf8))
            throw error
        }
        try users.receiveLogout(
            HostUserTable.ReceivedLogout(
                jwtID: claims.jwtID ?? "", subject: claims.subject, sessionID: claims["sid"]?.stringValue,
                receivedAt: Date()))
        return Response(status: .ok)
    }

    /// Takes a pushed SET (RFC 8935): 202 once it is verified and acted on; 400 with the RFC
    /// 8935 `err` and `description` when it is refused.
    private func securityEvent(_ request: Request) async -> Response {
        do {
            guard request.headers["Content-Type"]?.lowercased().hasPrefix("application/secevent+jwt") == true else {
                throw HostBackendError(.badRequest, "invalid_request", "send application/secevent+jwt")
            }
            let claims = try await securityEvents.verify(String(decoding: request.body, as: UTF8.self))
            let event = claims["events"]?.objectValue?.keys.first ?? ""
            let subject = claims["sub_id"]?.objectValue
            if Self.endingEvents.contains(event), subject?["format"]?.stringValue == "iss_sub",
                let sub = subject?["sub"]?.stringValue
            {
                let ended = try users.endLinkedSessions(subject: sub, jwtID: claims.jwtID ?? "", receivedAt: Date())
                if !ended.isEmpty {
                    FileHandle.standardError.write(
                        Data("portico-host-backend: \(event) ended \(ended.joined(separator: ", "))\n".utf8))
                }
            }
            return Response(status: HTTPStatus(rawValue: 202))
        } catch let error as HostBackendError {
            FileHandle.standardError.write(Data("portico-host-backend: refused a SET: \(error)\n".utf8))
            let body = ["err": error.error, "description": error.message]
            return (try? Response.json(body, status: .badRequest)) ?? Response(status: .badRequest)
        } catch {
            return Response(status: .internalServerError)
        }
    }

    /// Creates (or points at itself) the host's Shared Signals stream at the platform: push to
    /// ``securityEventsURI``, for the events that end a linked person's sessions. The host's
    /// client needs `--ssf --grant client_credentials`.
    public func subscribeToSecurityEvents() async throws {
        try await platform.pushSecurityEvents(to: securityEventsURI, events: Self.endingEvents.sorted())
    }

    private func signedIn(_ request: Request) throws -> HostUserTable.User {
        guard let header = request.headers["Authorization"], header.lowercased().hasPrefix("bearer "),
            let user = users.user(session: String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces))
        else {
            throw HostBackendError(.unauthorized, "invalid_token", "sign in to the host first (POST /host/sessions)")
        }
        return user
    }

    /// The auth model as the app receives it: `uid`, `access_token`, `host_user_id`, `expires_at`.
    static func model(of user: HostUserTable.User) -> [String: JSONValue]? {
        guard let link = user.link, let accessToken = link.accessToken else { return nil }
        var model: [String: JSONValue] = [
            "uid": .string(link.platformUserID), "access_token": .string(accessToken),
            "host_user_id": .string(user.hostUserID),
        ]
        if let expiresAt = link.expiresAt { model["expires_at"] = .integer(Int64(expiresAt.timeIntervalSince1970)) }
        return model
    }

    private static func answer(_ body: () throws -> Response) -> Response {
        do { return try body() } catch { return failure(error) }
    }

    private static func answerAsync(_ body: () async throws -> Response) async -> Response {
        do { return try await body() } catch { return failure(error) }
    }

    private static func failure(_ error: any Error) -> Response {
        if let error = error as? HostBackendError { return error.response }
        if let error = error as? HTTPError {
            return HostBackendError(.badRequest, "invalid_request", "\(error)").response
        }
        return HostBackendError(.internalServerError, "server_error", "\(error)").response
    }
}
