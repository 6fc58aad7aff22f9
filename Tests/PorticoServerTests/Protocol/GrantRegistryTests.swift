import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// The grant registry is the one list of grants: the token endpoint dispatches on it and on
/// nothing else, and discovery, registration, the CLI's help and metrics all say what it says.
@Suite struct GrantRegistryTests {
    /// Every grant type the registry knows, standard names and dialects.
    private static var everyName: [String] {
        TokenGrantRegistry.grants.flatMap { [$0.grantType] + $0.dialects }
    }

    @Test func anUnknownGrantIsUnsupportedEvenForAClientRegisteredForIt() async throws {
        try await ProviderHarness.with { harness in
            // A client whose stored grants name the unknown types beside client_credentials:
            // a fallthrough to any grant would answer it with tokens.
            let unknown = ["password", "urn:ietf:params:oauth:grant-type:jwt-bearer", "implicit"]
            let client = try harness.addConfidentialClient(
                scopes: [], grants: TokenGrantRegistry.grantTypes + unknown)
            for grantType in unknown {
                let reply = try await harness.token(
                    [("grant_type", grantType), ("username", "ann"), ("password", "x")],
                    client: ClientCredentials.of(client))
                #expect(reply.status == 400, "\(grantType)")
                #expect(reply.string("error") == "unsupported_grant_type", "\(grantType): \(reply.text)")
                #expect(reply.string("access_token") == nil)
            }
        }
    }

    @Test func anUnknownGrantFromAnUnknownClientIsStillInvalidClient() async throws {
        try await ProviderHarness.with { harness in
            let reply = try await harness.token(
                [("grant_type", "password")], client: .basic(id: "nobody", secret: "nothing"))
            #expect(reply.status == 401)
            #expect(reply.string("error") == "invalid_client")
        }
    }

    @Test func aClientMayNotUseAGrantItIsNotRegisteredFor() async throws {
        try await ProviderHarness.with { harness in
            for grant in TokenGrantRegistry.grants {
                let others = TokenGrantRegistry.grantTypes.filter { $0 != grant.grantType }
                let client = try harness.addConfidentialClient(grants: others)
                for name in [grant.grantType] + grant.dialects {
                    let reply = try await harness.token(
                        [("grant_type", name)], client: ClientCredentials.of(client))
                    #expect(reply.status == 400, "\(name)")
                    #expect(reply.string("error") == "unauthorized_client", "\(name): \(reply.text)")
                }
            }
        }
    }

    @Test func aPublicClientMayNotUseAConfidentialGrant() async throws {
        try await ProviderHarness.with { harness in
            let confidentialOnly = TokenGrantRegistry.grants.filter { !$0.clientTypes.contains(.public) }
            #expect(!confidentialOnly.isEmpty)
            let client = try harness.addPublicClient(grants: TokenGrantRegistry.grantTypes)
            for grant in confidentialOnly {
                let reply = try await harness.token([("grant_type", grant.grantType)], client: .id(client.id))
                #expect(reply.string("error") == "unauthorized_client", "\(grant.grantType): \(reply.text)")
            }
        }
    }

    @Test func discoveryAdvertisesExactlyTheRegistryAndTheEndpointAnswersEachOne() async throws {
        try await ProviderHarness.with { harness in
            let document = try await harness.request("GET", "/.well-known/openid-configuration").json
            let advertised = try #require(document["grant_types_supported"]?.arrayValue).compactMap(\.stringValue)
            #expect(advertised == TokenGrantRegistry.grantTypes)
            let client = try harness.addConfidentialClient(scopes: [], grants: advertised)
            for grantType in Self.everyName {
                let reply = try await harness.token(
                    [("grant_type", grantType)], client: ClientCredentials.of(client))
                #expect(reply.string("error") != "unsupported_grant_type", "\(grantType): \(reply.text)")
                #expect(reply.string("error") != "unauthorized_client", "\(grantType): \(reply.text)")
            }
        }
    }

    @Test func metricsHaveOneIssuedSeriesPerRegisteredGrant() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.metrics = true }) { harness in
            let text = try await harness.request("GET", "/metrics").text
            let prefix = #"portico_tokens_issued_total{grant=""#
            let labels = text.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix(prefix) else { return nil }
                return line.dropFirst(prefix.count).split(separator: "\"").first.map(String.init)
            }
            #expect(labels.sorted() == TokenGrantRegistry.grants.map { $0.metricsLabel }.sorted())
            for code in TokenGrantRegistry.grants.flatMap({ $0.errorCodes }) {
                #expect(text.contains(#"portico_token_errors_total{error="\#(code)"} 0"#), "\(code)")
            }
        }
    }

    @Test func theCLIHelpListsEveryRegisteredGrantAndTheDefaults() throws {
        let help = try PorticoProcess.run(["client", "add", "--help"])
        #expect(help.status == 0)
        // Words as one line: the help wraps them to its column.
        let text = (help.stdout + help.stderr).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for grant in TokenGrantRegistry.grants {
            #expect(text.contains(grant.grantType), "\(grant.grantType)")
            for dialect in grant.dialects { #expect(text.contains("or just \(dialect)"), "\(dialect)") }
        }
        let defaults = TokenGrantRegistry.defaultGrantTypes
        #expect(text.contains("(default \(defaults.joined(separator: " and ")))"))
    }

    @Test func registrationAcceptsEveryRegisteredNameAndRefusesOthers() throws {
        let database = try CLIDatabase()
        for name in Self.everyName {
            var arguments = ["client", "add", "--name", "App", "--redirect-uri", "https://app.example/cb"]
            arguments += ["--grant", name, "--json"]
            let result = try database.portico(arguments)
            #expect(result.status == 0, "\(name): \(result.stderr)")
        }
        let refused = try database.portico([
            "client", "add", "--name", "App", "--redirect-uri", "https://app.example/cb", "--grant", "password",
        ])
        #expect(refused.status != 0)
        for grantType in TokenGrantRegistry.grantTypes { #expect(refused.stderr.contains(grantType)) }
    }

    @Test func aClientRegisteredWithoutGrantsGetsTheRegistryDefaults() async throws {
        try await ProviderHarness.with { harness in
            let registered = try ClientRegistration(name: "App", redirectURIs: ["https://app.example/cb"])
                .register(in: harness.store)
            #expect(registered.client.allowedGrantTypes == TokenGrantRegistry.defaultGrantTypes)
            // The store's own default for a Client built in code says the same.
            #expect(
                Client(name: "App", type: .public, redirectURIs: []).allowedGrantTypes
                    == TokenGrantRegistry.defaultGrantTypes)
        }
    }
}

/// What a grant may add to the token endpoint's answer, and what it may not replace.
@Suite struct TokenEndpointResponseTests {
    @Test func additionalMembersAreAddedButNeverReplaceStandardOnes() throws {
        let response = TokenEndpointResponse(
            accessToken: "the-token", expiresIn: 60, scopes: ["orders:read"], refreshToken: nil, idToken: nil,
            additionalMembers: [
                "issued_token_type": "urn:ietf:params:oauth:token-type:access_token", "access_token": "forged",
                "token_type": "N_A",
            ]
        ).response()
        let members = try #require(JSONValue(parsing: Array(response.body))?.objectValue)
        #expect(members["issued_token_type"] == "urn:ietf:params:oauth:token-type:access_token")
        #expect(members["access_token"] == "the-token")
        #expect(members["token_type"] == "Bearer")
        #expect(members["expires_in"] == .integer(60))
        #expect(response.headers["Cache-Control"] == "no-store")
    }
}

/// `WWW-Authenticate` challenges carry their parameters as quoted strings however the words go.
@Suite struct ChallengeEscapingTests {
    private static func challenge(for error: OAuthError) throws -> (String?, TestReply) {
        let router = Router()
        router.get("/challenge") { _ in OAuthEndpoint.respond { throw error } }
        let server = HTTPServer(
            configuration: ServerConfiguration(port: 0, threads: 1, logRequests: false), router: router)
        try server.start()
        defer { server.shutdown() }
        let reply = try RawHTTPClient.send(
            port: server.port, method: "GET", path: "/challenge", headers: [:], body: nil)
        return (reply.header("WWW-Authenticate"), reply)
    }

    @Test func quotesAndBackslashesInADescriptionAreEscaped() throws {
        let (header, reply) = try Self.challenge(for: .invalidToken(#"say "no" \ twice"#))
        #expect(reply.status == 401)
        #expect(header == #"Bearer realm="portico", error="invalid_token", error_description="say \"no\" \\ twice""#)
        #expect(reply.string("error_description") == #"say "no" \ twice"#)
    }

    @Test func lineBreaksCannotAddAHeader() throws {
        let (header, reply) = try Self.challenge(for: .invalidToken("one\r\nX-Injected: yes"))
        #expect(reply.header("X-Injected") == nil)
        #expect(header == #"Bearer realm="portico", error="invalid_token", error_description="one  X-Injected: yes""#)
    }

    @Test func aRequiredScopeIsQuotedToo() throws {
        let (header, _) = try Self.challenge(for: .insufficientScope("Not enough.", required: #"a"b"#))
        #expect(header == #"Bearer realm="portico", error="insufficient_scope", scope="a\"b""#)
    }
}
