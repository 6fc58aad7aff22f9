import Foundation
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real `portico-agent` signing in through `$BROWSER` when its companion client is held to
/// PAR: it pushes its request (with a DPoP proof) and its tokens are bound to its own key.
@Suite(.serialized)
struct AgentPushTests {
    @Test func theAgentSignsInWithAPushedRequestAndBoundTokens() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser(name: "Agent Person")
            let resourceServer = try harness.addResourceServer()
            let companionID = try CompanionEndToEndTests.registerCompanion(harness)
            var companion = try #require(try harness.store.transaction { try $0.client(id: companionID) })
            companion.requiresPAR = true
            try harness.store.transaction { try $0.update(companion) }
            let script = harness.directory.appendingPathComponent("agent-browser.py")
            let log = harness.directory.appendingPathComponent("agent-browser.log")
            try BrowserScript.text(email: person.email, password: harness.password, log: log.path)
                .write(to: script, atomically: true, encoding: .utf8)
            chmod(script.path, 0o700)

            try await AgentProcess.with(issuer: harness.provider.issuer, clientID: companionID) { agent in
                let login = try agent.run(["login"], environment: ["BROWSER": script.path + " %s"])
                #expect(login.status == 0, "\(login.stderr)")
                // The URL it opened carries the pushed request's reference, not the request.
                #expect(login.stderr.contains("request_uri=urn%3Aietf%3Aparams%3Aoauth%3Arequest_uri%3A"))
                #expect(!login.stderr.contains("code_challenge"))

                let store = agent.tokenStore
                let grant = try #require(
                    try store.grant(for: TokenStoreKey(provider: harness.provider.issuer, clientID: companionID)))
                #expect(grant.tokenType == "DPoP")
                let introspection = try await harness.post(
                    "oauth/introspect",
                    [("token", grant.accessToken), ("client_id", resourceServer.id), ("client_secret", "secret")])
                #expect(introspection.json["active"]?.boolValue == true)
                #expect(introspection.json["cnf"]?.objectValue?["jkt"]?.stringValue == (try store.dpopKey().thumbprint))
            }
        }
    }

    /// An app held to PAR signs in through the agent: it pushes its request with a DPoP proof,
    /// the agent forwards only the `request_uri`, and the code the agent hands back is bound to
    /// the app's key — someone else who redeems it, even with the verifier, is refused.
    @Test func anAppHeldToPARSignsInThroughTheAgentWithABoundCode() async throws {
        try await CompanionEndToEndTests.withServingAgent { harness, agent, person, _ in
            let resourceServer = try harness.addResourceServer()
            var client = try harness.provider.addPublicClient(
                name: "Pushing App", redirectURIs: ["http://127.0.0.1/callback"],
                grants: ["authorization_code", "refresh_token"])
            client.requiresPAR = true
            try harness.store.transaction { try $0.update(client) }
            let clientID = client.id

            // Unpushed, the provider refuses the request the agent brings.
            let unpushed = try await harness.manager(
                for: client, userAgent: CompanionUserAgent(socketPath: agent.socketPath), pushedAuthorization: .never)
            let refused = await #expect(throws: AuthorizationError.self) {
                try await unpushed.authorize(CompanionEndToEndTests.request)
            }
            #expect(refused?.oauthError == "invalid_request", "\(String(describing: refused))")

            let (interceptor, stolen) = try CodeInterceptor.thief(
                harness, clientID: clientID, inner: CompanionUserAgent(socketPath: agent.socketPath))
            let manager = try await harness.manager(for: client, userAgent: interceptor)
            let signingIn = Task { try await manager.authorize(CompanionEndToEndTests.request) }
            let pending = try await agent.waitForPending()
            #expect(pending.first?.clientID == client.id)
            #expect(try agent.run(["approve", pending[0].id]).status == 0)
            let result = try await signingIn.value
            #expect(result.user?.userID == person.id)

            let attempt = try #require(stolen.withLock { $0.first })
            #expect(attempt.status == 400, "\(attempt.text)")
            let grant = try #require(try manager.store.grant(for: manager.storeKey))
            #expect(grant.tokenType == "DPoP")
            let introspection = try await harness.post(
                "oauth/introspect",
                [("token", grant.accessToken), ("client_id", resourceServer.id), ("client_secret", "secret")])
            #expect(
                introspection.json["cnf"]?.objectValue?["jkt"]?.stringValue == (try manager.store.dpopKey().thumbprint))
        }
    }

    /// A provider started with `--require-par` holds apps asking through the agent to it too.
    @Test func aProviderThatRequiresPARHoldsTheCompanionPathToItToo() async throws {
        try await CompanionEndToEndTests.withServingAgent(configuration: .testing { $0.requiresPAR = true }) {
            harness, agent, person, _ in
            let client = try harness.addPublicClient()
            let unpushed = try await harness.manager(
                for: client, userAgent: CompanionUserAgent(socketPath: agent.socketPath), pushedAuthorization: .never)
            let refused = await #expect(throws: AuthorizationError.self) {
                try await unpushed.authorize(CompanionEndToEndTests.request)
            }
            #expect(refused?.oauthError == "invalid_request", "\(String(describing: refused))")

            let manager = try await harness.manager(
                for: client, userAgent: CompanionUserAgent(socketPath: agent.socketPath))
            let signingIn = Task { try await manager.authorize(CompanionEndToEndTests.request) }
            let pending = try await agent.waitForPending()
            #expect(try agent.run(["approve", pending[0].id]).status == 0)
            #expect(try await signingIn.value.user?.userID == person.id)
        }
    }
}
