import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// RFC 7592 at `/oauth/register/{client_id}` over real HTTP on SQLite: read, replace (the
/// registration access token rotated, the secret kept), delete (everything issued revoked),
/// and 401 alike for a wrong token and another client's.
@Suite struct ClientConfigurationTests {
    /// A registered client: its id, secret, registration access token and configuration path.
    struct Registered {
        let id: String
        let secret: String
        let accessToken: String
        let path: String
    }

    func registerShop(_ harness: ProviderHarness, name: String = "Shop") async throws -> Registered {
        let token = try RegistrationTokenIssue().create(in: harness.store)
        let body = #"{"client_name": "\#(name)", "redirect_uris": ["https://shop.example/cb"]}"#
        let reply = try await register(harness, body, token: token)
        guard reply.status == 201, let id = reply.string("client_id"), let secret = reply.string("client_secret"),
            let accessToken = reply.string("registration_access_token"),
            let uri = reply.string("registration_client_uri")
        else { throw HarnessFailure("registration said \(reply.status) \(reply.text)") }
        return Registered(
            id: id, secret: secret, accessToken: accessToken, path: String(uri.dropFirst(harness.issuer.count)))
    }

    func call(_ harness: ProviderHarness, _ method: String, _ path: String, token: String, body: String? = nil)
        async throws -> TestReply
    {
        try await harness.request(
            method, path, headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
            rawBody: body)
    }

    @Test func readsWithItsTokenOnlyAndLeaksNoOtherClient() async throws {
        try await ProviderHarness.with { harness in
            let shop = try await registerShop(harness)
            let other = try await registerShop(harness, name: "Other")
            let read = try await call(harness, "GET", shop.path, token: shop.accessToken)
            #expect(read.status == 200, "\(read.text)")
            #expect(read.string("client_id") == shop.id)
            #expect(read.string("client_name") == "Shop")
            #expect(read.json["redirect_uris"] == ["https://shop.example/cb"])
            #expect(read.string("registration_client_uri") == harness.issuer + shop.path)
            #expect(read.json["client_secret"] == nil)

            let wrong = try await call(harness, "GET", shop.path, token: "wrong")
            let othersToken = try await call(harness, "GET", shop.path, token: other.accessToken)
            let unknownClient = try await call(harness, "GET", "/oauth/register/nobody", token: other.accessToken)
            for reply in [wrong, othersToken, unknownClient] {
                #expect(reply.status == 401)
                #expect(reply.string("error") == "invalid_token")
            }
            #expect(othersToken.text == unknownClient.text)
            let none = try await harness.request("GET", shop.path)
            #expect(none.status == 401)
            // The initial access token is no registration access token.
            let initial = try RegistrationTokenIssue().create(in: harness.store)
            #expect(try await call(harness, "GET", shop.path, token: initial).status == 401)
        }
    }

    @Test func replacingRotatesTheTokenAndKeepsTheSecret() async throws {
        try await ProviderHarness.with { harness in
            let shop = try await registerShop(harness)
            let body = #"""
                {"client_id": "\#(shop.id)", "client_name": "Shop 2", "redirect_uris": ["https://shop.example/new"],
                 "logo_uri": "https://shop.example/l.png"}
                """#
            let replaced = try await call(harness, "PUT", shop.path, token: shop.accessToken, body: body)
            #expect(replaced.status == 200, "\(replaced.text)")
            #expect(replaced.string("client_name") == "Shop 2")
            #expect(replaced.json["client_secret"] == nil)
            let newToken = try #require(replaced.string("registration_access_token"))
            #expect(newToken != shop.accessToken)
            let client = try #require(try harness.store.transaction { try $0.client(id: shop.id) })
            #expect(client.name == "Shop 2")
            #expect(client.redirectURIs == ["https://shop.example/new"])
            #expect(client.logoURL == "https://shop.example/l.png")
            #expect(client.verifiesSecret(shop.secret))

            #expect(try await call(harness, "GET", shop.path, token: shop.accessToken).status == 401)
            #expect(try await call(harness, "GET", shop.path, token: newToken).status == 200)
        }
    }

    @Test func aRefusedReplacementChangesNothing() async throws {
        try await ProviderHarness.with { harness in
            let shop = try await registerShop(harness)
            let cases: [(String, String)] = [
                (#"{"client_id": "\#(shop.id)", "redirect_uris": ["http://shop.example/cb"]}"#, "invalid_redirect_uri"),
                (
                    #"{"client_id": "someone-else", "redirect_uris": ["https://shop.example/cb"]}"#,
                    "invalid_client_metadata"
                ),
                (#"{"redirect_uris": ["https://shop.example/cb"]}"#, "invalid_client_metadata"),
                (
                    #"{"client_id": "\#(shop.id)", "client_secret": "guess", "redirect_uris": ["https://shop.example/cb"]}"#,
                    "invalid_client_metadata"
                ),
                (
                    #"{"client_id": "\#(shop.id)", "redirect_uris": ["https://shop.example/cb"], "grant_types": ["nope"]}"#,
                    "invalid_client_metadata"
                ),
            ]
            for (body, code) in cases {
                let reply = try await call(harness, "PUT", shop.path, token: shop.accessToken, body: body)
                #expect(reply.status == 400, "\(body): \(reply.text)")
                #expect(reply.string("error") == code, "\(body): \(reply.text)")
            }
            let client = try #require(try harness.store.transaction { try $0.client(id: shop.id) })
            #expect(client.name == "Shop")
            #expect(client.redirectURIs == ["https://shop.example/cb"])
            // The token was not rotated by a refusal.
            #expect(try await call(harness, "GET", shop.path, token: shop.accessToken).status == 200)
        }
    }

    @Test func deletingRemovesTheClientAndRevokesWhatItWasIssued() async throws {
        try await ProviderHarness.with { harness in
            let shop = try await registerShop(harness)
            let other = try await registerShop(harness, name: "Other")
            #expect(try await call(harness, "DELETE", shop.path, token: other.accessToken).status == 401)

            let client = try #require(try harness.store.transaction { try $0.client(id: shop.id) })
            let user = try harness.addUser()
            let credentials = ClientCredentials.basic(id: shop.id, secret: shop.secret)
            let tokens = try await harness.signIn(user, to: client, scopes: ["openid"], credentials: credentials)
            let refreshToken = try #require(tokens.string("refresh_token"))

            let deleted = try await call(harness, "DELETE", shop.path, token: shop.accessToken)
            #expect(deleted.status == 204)
            #expect(try harness.store.transaction { try $0.client(id: shop.id) } == nil)
            #expect(try await harness.refresh(refreshToken, client: credentials).status != 200)
            #expect(try await call(harness, "GET", shop.path, token: shop.accessToken).status == 401)
            #expect(try await call(harness, "DELETE", shop.path, token: shop.accessToken).status == 401)
            #expect(try await call(harness, "GET", other.path, token: other.accessToken).status == 200)
        }
    }
}
