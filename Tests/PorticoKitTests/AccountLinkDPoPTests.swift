import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Synchronization
import Testing

@testable import PorticoKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The mini-program token of an account link bound to the host app's installation key: the
/// session hands the example host backend a proof, the backend forwards it with its token
/// exchange, and the mini-program's calls go out with proofs of that key (issue 27).
@Suite("Account link DPoP") struct AccountLinkDPoPTests {
    /// The profile endpoint, as a mini-program would call it.
    private func profileRequest(_ world: AccountLinkWorld) -> URLRequest {
        URLRequest(url: world.kit.issuer.appendingPathComponent("user/profile"))
    }

    /// `/user/profile` through the session's authorized request, retried once when the server
    /// asks for its nonce.
    private func profile(_ session: AccountLinkSession, _ world: AccountLinkWorld) async throws -> HTTPReply {
        var reply = try await HTTPClient.shared.send(try await session.authorizedRequest(profileRequest(world)))
        if reply.status == 401, reply.header("WWW-Authenticate")?.contains("use_dpop_nonce") == true {
            let refusal = try #require(
                HTTPURLResponse(
                    url: world.kit.issuer, statusCode: reply.status, httpVersion: nil, headerFields: reply.headers))
            reply = try await HTTPClient.shared.send(
                try await session.authorizedRequest(profileRequest(world), retrying: refusal))
        }
        return reply
    }

    /// Introspection's answer for `token`, as a resource server sees it.
    private func introspect(_ token: String, _ world: AccountLinkWorld) async throws -> [String: ProfileValue] {
        let resourceServer = try world.kit.addResourceServer()
        let reply = try await world.kit.post(
            "oauth/introspect", [("token", token), ("client_id", resourceServer.id), ("client_secret", "secret")])
        #expect(reply.status == 200)
        return reply.json
    }

    @Test("the model's mini-program token is DPoP-bound to the installation key; refused as Bearer, taken with a proof")
    func boundToTheInstallationKey() async throws {
        try await AccountLinkWorld.with { world in
            let app = try await world.hostApp()
            let store = FileTokenStore(directory: world.provider.directory.appendingPathComponent("app-tokens"))
            let manager = try await world.manager(opener: world.robot().opener, store: store)
            let proofs = ProofLog()
            let session = world.boundSession(manager, app: app, proofs: proofs)
            let model = try await session.authModel()
            #expect(model.uid == world.person.id)
            #expect(model.tokenType == "DPoP")
            #expect(model.isDPoPBound)

            let thumbprint = try store.dpopKey().thumbprint
            #expect(proofs.all.map { $0?.thumbprint } == [thumbprint])
            let introspected = try await introspect(model.accessToken, world)
            #expect(introspected["active"]?.boolValue == true)
            #expect(introspected["client_id"]?.stringValue == world.miniProgram.id)
            #expect(introspected["cnf"]?.objectValue?["jkt"]?.stringValue == thumbprint)
            // The host's own token never left the backend and stays unbound: it refreshes there.
            let hostToken = try #require(world.currentBackend.users.user(model.hostUserID)?.link?.accessToken)
            #expect(hostToken != model.accessToken)
            #expect(try await introspect(hostToken, world)["cnf"] == nil)

            let asBearer = try await world.provider.resource("/user/profile", token: model.accessToken)
            #expect(asBearer.status == 401)
            #expect(asBearer.header("WWW-Authenticate")?.contains("invalid_token") == true)
            let withProof = try await profile(session, world)
            #expect(withProof.status == 200, "\(String(decoding: withProof.body, as: UTF8.self))")
            #expect(withProof.jsonObject?["name"]?.stringValue == "Mei Host")

            // Cached with its type: the restarted app's session still sends proofs.
            let restarted = world.boundSession(manager, app: app)
            #expect(try await restarted.cachedModel()?.tokenType == "DPoP")
            #expect(try await profile(restarted, world).status == 200)
        }
    }

    @Test("a stolen mini-program token is useless: as Bearer, and with a proof of another key")
    func stolenTokenIsUseless() async throws {
        try await AccountLinkWorld.with { world in
            let app = try await world.hostApp()
            let session = world.boundSession(try await world.manager(opener: world.robot().opener), app: app)
            let model = try await session.authModel()
            // The thief tries it every way he can: plain, then with a key of his own.
            #expect(try await world.provider.resource("/user/profile", token: model.accessToken).status == 401)
            let thief = try DPoPProver()
            let url = world.kit.issuer.appendingPathComponent("user/profile").absoluteString
            let proof = thief.proof("GET", url, accessToken: model.accessToken)
            let stolen = try await world.provider.resource("/user/profile", token: model.accessToken, proof: proof)
            #expect(stolen.status == 401, "\(stolen.text)")
            // The owner's own call, proof from the installation key, passes.
            #expect(try await profile(session, world).status == 200)
        }
    }

    @Test("a provider that wants nonces: the backend hands the nonce back and the session signs again, once")
    func nonceHandBack() async throws {
        try await AccountLinkWorld.with(configure: Self.wantingNonces) { world in
            let app = try await world.hostApp()
            let manager = try await world.manager(opener: world.robot().opener)
            let proofs = ProofLog()
            let session = world.boundSession(manager, app: app, proofs: proofs)
            let model = try await session.authModel()
            #expect(model.tokenType == "DPoP")
            // The first proof had no nonce of this provider's: refused, handed back, signed anew.
            let sent = proofs.all.compactMap { $0?.value }
            #expect(sent.count == 2)
            #expect(sent.first.map(Self.nonce(in:)) == .some(nil))
            #expect(sent.last.flatMap(Self.nonce(in:)) != nil)
            let thumbprint = try manager.store.dpopKey().thumbprint
            let introspected = try await introspect(model.accessToken, world)
            #expect(introspected["cnf"]?.objectValue?["jkt"]?.stringValue == thumbprint)
            #expect(try await profile(session, world).status == 200)
        }
    }

    @Test("without DPoP advertised, or with it turned off, the model stays a bearer token", arguments: [true, false])
    func bearerWithoutDPoP(advertised: Bool) async throws {
        try await AccountLinkWorld.with { world in
            let app = try await world.hostApp()
            let manager = try await world.manager(
                opener: world.robot().opener, usesDPoP: advertised ? false : true, advertisesDPoP: advertised)
            let proofs = ProofLog()
            let session = world.boundSession(manager, app: app, proofs: proofs)
            let model = try await session.authModel()
            #expect(proofs.all.count == 1 && proofs.all[0] == nil)
            #expect(!model.isDPoPBound)
            #expect(try await introspect(model.accessToken, world)["cnf"] == nil)
            let request = try await session.authorizedRequest(profileRequest(world))
            #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer \(model.accessToken)")
            #expect(request.value(forHTTPHeaderField: "DPoP") == nil)
            #expect(try await profile(session, world).status == 200)
        }
    }

    @Test("a model cached by an older version (no token type) is still sent as a bearer token")
    func olderCachedModelIsBearer() async throws {
        try await AccountLinkWorld.with { world in
            let app = try await world.hostApp()
            let manager = try await world.manager(opener: world.robot().opener)
            // Linked the old way: the backend's model, then a bearer mini-program token.
            let legacy = world.session(manager, app: app)
            let old = try await legacy.authModel()
            let exchanged = try await app.miniProgramToken(world.miniProgram.id)
            let token = try #require(exchanged.json["access_token"] as? String)
            #expect(exchanged.json["token_type"] as? String == "Bearer")
            // What an older version stored: a grant without a token type.
            let stored = StoredGrant(
                accessToken: token, expiresAt: Date().addingTimeInterval(600), refreshToken: nil,
                scopes: [Scope.accountLink.name],
                idTokenClaims: [
                    "account_link_uid": .string(old.uid), "account_link_host_user_id": .string(old.hostUserID),
                ])
            try manager.store.save(stored, for: legacy.storeKey)
            let session = world.boundSession(manager, app: app)
            #expect(try await session.cachedModel()?.tokenType == nil)
            #expect(try await profile(session, world).status == 200)
        }
    }

    @Test("the backend forwards only a compact JWS as the proof, refusing anything else before the platform is asked")
    func malformedProofIsRefused() async throws {
        try await AccountLinkWorld.with { world in
            let app = try await world.hostApp()
            let session = world.boundSession(try await world.manager(opener: world.robot().opener), app: app)
            _ = try await session.authModel()
            let path = "host/mini-programs/\(world.miniProgram.id)/token"
            let oversized = String(repeating: "a", count: 9000) + ".b.c"
            for bad in ["a.b\r\nX-Injected: 1.c", "not-a-jws", "a.b.c.d", oversized] {
                let reply = try await app.send("POST", path, form: [("dpop", bad)])
                #expect(reply.status == 400)
                #expect(reply.json["error"] as? String == "invalid_request")
            }
            // At the link the code is never tried: invalid_request, not the platform's invalid_grant.
            let link = try await app.send(
                "POST", "host/account-link",
                form: [
                    ("code", "unused"), ("code_verifier", "v"), ("redirect_uri", world.host.redirectURIs[0]),
                    ("mini_program", world.miniProgram.id), ("dpop", "x\ny.z.w"),
                ])
            #expect(link.status == 400)
            #expect(link.json["error"] as? String == "invalid_request")
        }
    }

    /// A provider that wants its nonce in every proof (`--dpop-nonce`).
    private static func wantingNonces(_ configuration: inout ProviderConfiguration) {
        configuration.requiresDPoPNonce = true
    }

    /// The `nonce` claim of a proof, if any.
    private static func nonce(in proof: String) -> String? {
        let parts = proof.split(separator: ".")
        guard parts.count == 3, let payload = Base64URLCoding.decode(String(parts[1])) else { return nil }
        return ProfileValue(parsing: payload)?.objectValue?["nonce"]?.stringValue
    }
}
