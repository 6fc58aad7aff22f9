import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// DPoP on two providers on one PostgreSQL database, as two nodes behind a load balancer: a
/// proof accepted by one node is a replay at the other (RFC 9449 §11.1), and a nonce one node
/// hands out is good at the other without a store read (§8).
@Suite(TestServer.required) struct DPoPTwoNodeTests {
    /// One request to `node` over loopback, answered as the node answers it.
    private func send(
        _ node: IdentityProvider, _ method: String, _ path: String, form: [(String, String)]? = nil,
        headers: [String: String]
    ) throws -> TestReply {
        var headers = headers
        var body: Data?
        if let form {
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = Data(ProviderHarness.formEncode(form).utf8)
        }
        return try RawHTTPClient.send(port: node.port, method: method, path: path, headers: headers, body: body)
    }

    @Test func aProofIsAcceptedOnceAcrossNodesAndANonceOfOneIsGoodAtTheOther() async throws {
        let database = try TemporaryDatabase()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-dpop-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let issuer = "http://127.0.0.1:1"
        let configuration = ProviderConfiguration.testing { configuration in
            configuration.issuer = issuer
            configuration.keyFile = directory.appendingPathComponent("signing.key").path
            configuration.outboxDirectory = directory.appendingPathComponent("outbox").path
            configuration.requiresDPoPNonce = true
        }
        let store = try database.store()
        defer { store.close() }
        let first = try IdentityProvider(configuration: configuration, store: try database.store())
        try first.start()
        defer { first.shutdown() }
        let second = try IdentityProvider(configuration: configuration, store: try database.store())
        try second.start()
        defer { second.shutdown() }

        let user = UserRecord(email: "ann@example.com", name: "Ann", passwordHash: "$argon2id$stand-in")
        try store.insert(user)
        let client = Client(
            name: "App", type: .public, redirectURIs: ["http://127.0.0.1/callback"], allowedScopes: ["openid"])
        try store.insert(client)
        func code() throws -> [(String, String)] {
            let code = SecureRandom.token()
            let verifier = PKCE.makeVerifier()
            try store.insert(
                AuthorizationCode(
                    code: code, clientID: client.id, userID: user.id, redirectURI: client.redirectURIs[0],
                    scopes: ["openid"], codeChallenge: PKCE.challenge(for: verifier), authTime: Date(),
                    expiresAt: Date().addingTimeInterval(60)))
            return [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", client.redirectURIs[0]),
                ("code_verifier", verifier), ("client_id", client.id),
            ]
        }
        let key = try DPoPProver()
        let tokenURL = issuer + "/oauth/token"

        // The first node asks for its nonce; the second accepts it.
        let asked = try send(
            first, "POST", "/oauth/token", form: try code(), headers: ["DPoP": key.proof("POST", tokenURL)])
        #expect(asked.string("error") == "use_dpop_nonce", "\(asked.text)")
        let nonce = try #require(asked.header("DPoP-Nonce"))
        let proof = key.proof("POST", tokenURL, nonce: nonce)
        let issued = try send(second, "POST", "/oauth/token", form: try code(), headers: ["DPoP": proof])
        #expect(issued.status == 200, "\(issued.text)")
        #expect(issued.string("token_type") == "DPoP")
        let access = try #require(issued.string("access_token"))

        // The same proof at the other node is a replay; a fresh one passes.
        let replayed = try send(first, "POST", "/oauth/token", form: try code(), headers: ["DPoP": proof])
        #expect(replayed.status == 400)
        #expect(replayed.string("error") == "invalid_dpop_proof", "\(replayed.text)")
        let fresh = try send(
            first, "POST", "/oauth/token", form: try code(),
            headers: ["DPoP": key.proof("POST", tokenURL, nonce: nonce)])
        #expect(fresh.status == 200, "\(fresh.text)")

        // At userinfo too.
        let userinfo = key.proof("GET", issuer + "/oauth/userinfo", accessToken: access, nonce: nonce)
        let headers = ["Authorization": "DPoP \(access)", "DPoP": userinfo]
        let once = try send(first, "GET", "/oauth/userinfo", headers: headers)
        #expect(once.status == 200, "\(once.text)")
        let twice = try send(second, "GET", "/oauth/userinfo", headers: headers)
        #expect(twice.status == 401)
        #expect(twice.header("WWW-Authenticate")?.contains(#"error="invalid_dpop_proof""#) == true)
    }
}
