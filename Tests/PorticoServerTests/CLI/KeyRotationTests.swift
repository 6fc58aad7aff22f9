import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// `portico keys rotate` through the real binary against the database of a running provider:
/// the provider picks the new keys up by itself, tokens signed before and after verify, and the
/// old keys leave the JWKS only once everything they signed has expired.
@Suite(.serialized) struct KeyRotationTests {
    /// The `kid` in a compact JWS's header.
    private func keyID(of token: String) throws -> String {
        let header = try #require(token.split(separator: ".").first)
        let bytes = try #require(Base64URL.decode(header))
        return try #require(JSONValue(parsing: bytes)?.objectValue?["kid"]?.stringValue)
    }

    /// The kids the provider publishes now.
    private func publishedKeyIDs(_ harness: ProviderHarness) async throws -> Set<String> {
        let document = try await harness.request("GET", "/oauth/jwks")
        let keys = document.json["keys"]?.arrayValue ?? []
        return Set(keys.compactMap { $0.objectValue?["kid"]?.stringValue })
    }

    /// Waits (bounded) until `condition` holds; the provider re-reads keys every 100 ms here.
    private func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<200 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test func tokensFromBeforeAndAfterARotationVerifyUntilTheOldKeysAreDeleted() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.keyRefreshInterval = .milliseconds(100) }) {
            harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient()
            let credentials = ClientCredentials.of(client)
            let before = try await harness.signIn(user, to: client, scopes: ["openid", "profile"])
            let oldAccessToken = try #require(before.string("access_token"))
            let oldIDToken = try #require(before.string("id_token"))
            let oldKeys = try harness.store.signingKeys()
            #expect(oldKeys.count == 3)

            let rotated = try PorticoProcess.run(["keys", "rotate", "--json", "--database", harness.databaseURL])
            #expect(rotated.status == 0, "\(rotated.stderr)")
            let rotations = try #require(cliJSON(rotated.stdout)?.arrayValue)
            #expect(rotations.count == 3)
            let previous = Set(rotations.compactMap { $0.objectValue?["previous_kid"]?.stringValue })
            #expect(previous == Set(oldKeys.map(\.id)))
            let newES256 = try #require(
                rotations.first { $0.objectValue?["alg"]?.stringValue == "ES256" }?.objectValue?["kid"]?.stringValue)
            #expect(rotations.allSatisfy { $0.objectValue?["previous_published_until"]?.stringValue != nil })

            // The running provider starts signing with the new key without a restart.
            let switched = try await eventually {
                try await publishedKeyIDs(harness).contains(newES256)
            }
            #expect(switched)
            let after = try await harness.signIn(user, to: client, scopes: ["openid", "profile"])
            let newAccessToken = try #require(after.string("access_token"))
            let newIDToken = try #require(after.string("id_token"))
            #expect(try keyID(of: newAccessToken) == newES256)
            #expect(try keyID(of: oldAccessToken) != newES256)

            // Both generations are published, and every token still verifies.
            let published = try await publishedKeyIDs(harness)
            #expect(published.count == 6)
            #expect(published.isSuperset(of: oldKeys.map(\.id)))
            let verifier = try await harness.jwksVerifier()
            for token in [oldIDToken, newIDToken] {
                #expect((try? verifier.verify(token, algorithms: [.rs256])) != nil)
            }
            for token in [oldAccessToken, newAccessToken] {
                #expect(try await harness.resource("/oauth/userinfo", token: token).status == 200)
                let introspection = try await harness.introspect(token, client: credentials)
                #expect(introspection.json["active"] == .bool(true))
            }
            let listed = try PorticoProcess.run(["keys", "list", "--json", "--database", harness.databaseURL])
            let states = try #require(cliJSON(listed.stdout)?.arrayValue).compactMap(\.objectValue)
            for old in oldKeys {
                let entry = try #require(states.first { $0["kid"]?.stringValue == old.id })
                #expect(entry["state"] == .string("retired"))
                #expect(entry["current"] == .bool(false))
            }

            // Nothing is deleted while tokens the old keys signed may live; afterwards they go.
            #expect(try SigningKeyRotation.deleteExpiredKeys(in: harness.store, now: Date()).isEmpty)
            let later = Date().addingTimeInterval(SigningKeyRotation.retention + 1)
            let deleted = try SigningKeyRotation.deleteExpiredKeys(in: harness.store, now: later)
            #expect(Set(deleted) == Set(oldKeys.map(\.id)))
            let unpublished = try await eventually {
                try await publishedKeyIDs(harness).isDisjoint(with: oldKeys.map(\.id))
            }
            #expect(unpublished)
            #expect(try await publishedKeyIDs(harness).count == 3)
            #expect(try await harness.resource("/oauth/userinfo", token: newAccessToken).status == 200)
            let events = try harness.store.read { try $0.recentAuditEvents(limit: 20) }
            #expect(events.filter { $0.action == "keys.rotate" }.count == 3)
            #expect(events.filter { $0.action == "keys.delete_retired" }.count == 3)
        }
    }

    @Test func rotatingOneAlgorithmLeavesTheOthersAndBadNamesAreUsageErrors() throws {
        let database = try CLIDatabase()
        #expect(try database.portico(["migrate"]).status == 0)
        let before = try #require(cliJSON(try database.portico(["keys", "list", "--json"]).stdout)?.arrayValue)

        let rotated = try database.portico(["keys", "rotate", "--alg", "es256"])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        #expect(rotated.stdout.contains("ES256: new signing key"))
        #expect(rotated.stdout.contains("stays in the JWKS until"))
        #expect(!rotated.stdout.contains("RS256"))
        let after = try #require(cliJSON(try database.portico(["keys", "list", "--json"]).stdout)?.arrayValue)
        #expect(after.count == before.count + 1)
        let current = after.compactMap(\.objectValue).filter { $0["current"] == .bool(true) }
        #expect(current.count == 3)
        let retired = after.compactMap(\.objectValue).filter { $0["state"] == .string("retired") }
        #expect(retired.count == 1)
        #expect(retired.first?["alg"] == .string("ES256"))
        let human = try database.portico(["keys", "list"])
        #expect(human.stdout.contains("published until"))

        let bad = try database.portico(["keys", "rotate", "--alg", "HS256"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("unknown algorithm 'HS256'"))
        #expect(bad.stderr.split(separator: "\n").count == 1)
        let help = try PorticoProcess.run(["keys", "rotate", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("without --alg, of all three"))
    }
}
