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
}
