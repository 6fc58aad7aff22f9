import Foundation
import PorticoTesting
import Testing

/// The companion endpoints are counted in `/metrics`: answers by outcome, consents by decision.
@Suite struct CompanionMetricsTests {
    /// The value of each sample line of a scrape.
    private static func samples(_ harness: ProviderHarness) async throws -> [String: Double] {
        let reply = try await harness.request("GET", "/metrics")
        #expect(reply.status == 200)
        var samples: [String: Double] = [:]
        for line in reply.text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            samples[String(line[..<space])] = Double(line[line.index(after: space)...])
        }
        return samples
    }

    @Test func answersAndDecisionsAreCounted() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.metrics = true }) { harness in
            try harness.addUser()
            let shop = try harness.addClient(name: "Test Shop")
            let notes = try harness.addClient(
                name: "Notes", type: .public, redirectURIs: ["http://127.0.0.1/callback"], privacyURL: nil)
            let agent = try await TestCompanion.signIn(harness, client: try TestCompanion.register(in: harness))
            let before = try await Self.samples(harness)
            #expect(before[#"portico_companion_authorizations_total{outcome="code"}"#] == 0)

            _ = try await agent.code(for: shop, pkce: PKCEPair())  // consent, allow
            _ = try await agent.code(for: shop, pkce: PKCEPair())  // code
            _ = try await agent.code(for: notes, pkce: PKCEPair())  // consent, allow
            let again = try await agent.authorize(TestCompanion.request(for: notes, pkce: PKCEPair()))
            _ = try await agent.decide(try #require(again.string("ticket")), "deny")  // continue, deny
            _ = try await agent.decide("nothing", "allow")  // refused
            _ = try await agent.authorize(
                TestCompanion.request(for: shop, pkce: PKCEPair(), extra: [("prompt", "login")]))
            _ = try await agent.authorize(TestCompanion.request(for: shop, pkce: PKCEPair()), bearer: "bad")

            let after = try await Self.samples(harness)
            #expect(after[#"portico_companion_authorizations_total{outcome="consent"}"#] == 2)
            #expect(after[#"portico_companion_authorizations_total{outcome="code"}"#] == 1)
            #expect(after[#"portico_companion_authorizations_total{outcome="continue"}"#] == 1)
            #expect(after[#"portico_companion_authorizations_total{outcome="error"}"#] == 2)
            #expect(after[#"portico_companion_consents_total{decision="allow"}"#] == 2)
            #expect(after[#"portico_companion_consents_total{decision="deny"}"#] == 1)
            #expect(after[#"portico_companion_consents_total{decision="refused"}"#] == 1)
        }
    }
}
