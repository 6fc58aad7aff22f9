import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// `portico keys rotate` through the real binary against the database of a running provider:
/// the new keys are published at once and sign only after the JWKS cache lifetime (the test's
/// clock is moved), the provider picks them up by itself, tokens signed before and after
/// verify, and the old keys leave the JWKS only once everything they signed has expired.
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

    /// The `kid` of the access token a fresh sign-in gets.
    private func signingKeyID(_ harness: ProviderHarness, user: UserRecord, client: Client) async throws -> String {
        let tokens = try await harness.signIn(user, to: client, scopes: ["openid", "profile"])
        return try keyID(of: try #require(tokens.string("access_token")))
    }

    @Test func aRotatedKeyIsPublishedFirstAndSignsOnlyOnceCachedKeySetsHaveExpired() async throws {
        let clock = TestClock()
        try await ProviderHarness.with(
            clock: clock, configuration: .testing { $0.keyRefreshInterval = .milliseconds(100) }
        ) { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(introspection: true)
            let credentials = ClientCredentials.of(client)
            let before = try await harness.signIn(user, to: client, scopes: ["openid", "profile"])
            let oldAccessToken = try #require(before.string("access_token"))
            let oldIDToken = try #require(before.string("id_token"))
            let oldKeys = try harness.store.signingKeys()
            #expect(oldKeys.count == 4)
            let oldES256 = try #require(oldKeys.first { $0.algorithm == "ES256" }?.id)
            #expect(try keyID(of: oldAccessToken) == oldES256)

            let rotated = try PorticoProcess.run(["keys", "rotate", "--json", "--database", harness.databaseURL])
            #expect(rotated.status == 0, "\(rotated.stderr)")
            let rotations = try #require(cliJSON(rotated.stdout)?.arrayValue)
            #expect(rotations.count == 4)
            let previous = Set(rotations.compactMap { $0.objectValue?["previous_kid"]?.stringValue })
            #expect(previous == Set(oldKeys.map(\.id)))
            let newKeyIDs = Set(rotations.compactMap { $0.objectValue?["kid"]?.stringValue })
            let newES256 = try #require(
                rotations.first { $0.objectValue?["alg"]?.stringValue == "ES256" }?.objectValue?["kid"]?.stringValue)
            #expect(rotations.allSatisfy { $0.objectValue?["signs_from"]?.stringValue != nil })
            #expect(rotations.allSatisfy { $0.objectValue?["previous_published_until"]?.stringValue != nil })

            // Published at once (the running provider re-reads the keys by itself)...
            let published = try await eventually {
                try await publishedKeyIDs(harness).isSuperset(of: newKeyIDs)
            }
            #expect(published)
            #expect(try await publishedKeyIDs(harness).count == 8)
            let listed = try PorticoProcess.run(["keys", "list", "--json", "--database", harness.databaseURL])
            let states = try #require(cliJSON(listed.stdout)?.arrayValue).compactMap(\.objectValue)
            for entry in states where newKeyIDs.contains(entry["kid"]?.stringValue ?? "") {
                #expect(entry["state"] == .string("published"))
                #expect(entry["current"] == .bool(false))
                #expect(entry["signs_from"]?.stringValue != nil)
            }
            for entry in states where previous.contains(entry["kid"]?.stringValue ?? "") {
                #expect(entry["state"] == .string("active"))
                #expect(entry["current"] == .bool(true))
            }
            let human = try PorticoProcess.run(["keys", "list", "--database", harness.databaseURL])
            #expect(human.stdout.contains("published"))
            #expect(human.stdout.contains("signs from"))

            // ...but the old key signs until every JWKS cached before the rotation has expired.
            #expect(try await signingKeyID(harness, user: user, client: client) == oldES256)
            // Two minutes before the new key's time (a margin for a slow machine, since the
            // clock runs on real time underneath), the old key still signs.
            let waiting = try #require(try harness.store.signingKey(id: newES256))
            let signsFrom = try #require(waiting.signsFrom)
            #expect(signsFrom.timeIntervalSince(waiting.createdAt) == SigningKeyRotation.publicationDelay)
            clock.advance(by: signsFrom.timeIntervalSince(clock.now) - 120)
            try await Task.sleep(for: .milliseconds(400))
            #expect(try await signingKeyID(harness, user: user, client: client) == oldES256)
            #expect(SigningKeyRotation.publicationDelay >= TimeInterval(JWKSEndpoint.cacheLifetime))
            let maxAge = try await harness.request("GET", "/oauth/jwks").headers["Cache-Control"]
            #expect(maxAge == "public, max-age=\(JWKSEndpoint.cacheLifetime)")

            // Then the new key takes over without a restart, and the old one is retired.
            clock.advance(by: 121)
            let switched = try await eventually {
                try await signingKeyID(harness, user: user, client: client) == newES256
            }
            #expect(switched)
            let after = try await harness.signIn(user, to: client, scopes: ["openid", "profile"])
            let newAccessToken = try #require(after.string("access_token"))
            let newIDToken = try #require(after.string("id_token"))
            let relisted = try PorticoProcess.run(["keys", "list", "--json", "--database", harness.databaseURL])
            let newStates = try #require(cliJSON(relisted.stdout)?.arrayValue).compactMap(\.objectValue)
            for old in oldKeys {
                let entry = try #require(newStates.first { $0["kid"]?.stringValue == old.id })
                #expect(entry["state"] == .string("retired"))
                #expect(entry["current"] == .bool(false))
            }
            #expect(newStates.filter { $0["state"] == .string("active") && $0["current"] == .bool(true) }.count == 4)

            // Both generations are published, and every token still verifies.
            #expect(try await publishedKeyIDs(harness).count == 8)
            let verifier = try await harness.jwksVerifier()
            for token in [oldIDToken, newIDToken] {
                #expect((try? verifier.verify(token, algorithms: [.rs256])) != nil)
            }
            for token in [oldAccessToken, newAccessToken] {
                #expect(try await harness.resource("/oauth/userinfo", token: token).status == 200)
                let introspection = try await harness.introspect(token, client: credentials)
                #expect(introspection.json["active"] == .bool(true))
            }

            // Nothing is deleted while tokens the old keys signed may live; afterwards they go.
            #expect(try SigningKeyRotation.deleteExpiredKeys(in: harness.store, now: clock.now).isEmpty)
            let later = clock.now.addingTimeInterval(SigningKeyRotation.retention + 1)
            let deleted = try SigningKeyRotation.deleteExpiredKeys(in: harness.store, now: later)
            #expect(Set(deleted) == Set(oldKeys.map(\.id)))
            let unpublished = try await eventually {
                try await publishedKeyIDs(harness).isDisjoint(with: oldKeys.map(\.id))
            }
            #expect(unpublished)
            #expect(try await publishedKeyIDs(harness).count == 4)
            #expect(try await harness.resource("/oauth/userinfo", token: newAccessToken).status == 200)
            let events = try harness.store.read { try $0.recentAuditEvents(limit: 20) }
            #expect(events.filter { $0.action == "keys.rotate" }.count == 4)
            #expect(events.filter { $0.action == "keys.activate" }.count == 4)
            #expect(events.filter { $0.action == "keys.delete_retired" }.count == 4)
        }
    }

    @Test func aKeyWhoseTimeCameWhileNoServerRanSignsFromTheNextStart() throws {
        let database = try CLIDatabase()
        #expect(try database.portico(["migrate"]).status == 0)
        let rotated = try database.portico(["keys", "rotate", "--alg", "RS256", "--json"])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        let newKey = try #require(cliJSON(rotated.stdout)?.arrayValue?.first?.objectValue?["kid"]?.stringValue)
        let store = try openStore(url: database.url)
        defer { store.close() }
        #expect(try store.currentSigningKey(algorithm: "RS256")?.id != newKey)
        #expect(try SigningKeyRotation.activateDueKeys(in: store, now: Date()).isEmpty)
        let due = Date().addingTimeInterval(SigningKeyRotation.publicationDelay + 1)
        #expect(try SigningKeyRotation.activateDueKeys(in: store, now: due) == [newKey])
        #expect(try store.currentSigningKey(algorithm: "RS256")?.id == newKey)
        // Activating again does nothing: the key is no longer waiting.
        #expect(try SigningKeyRotation.activateDueKeys(in: store, now: due).isEmpty)
        #expect(try store.signingKeys().filter { $0.algorithm == "RS256" && $0.state == .retired }.count == 1)
    }

    @Test func rotatingOneAlgorithmLeavesTheOthersAndBadNamesAreUsageErrors() throws {
        let database = try CLIDatabase()
        #expect(try database.portico(["migrate"]).status == 0)
        let before = try #require(cliJSON(try database.portico(["keys", "list", "--json"]).stdout)?.arrayValue)

        let rotated = try database.portico(["keys", "rotate", "--alg", "es256"])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        #expect(rotated.stdout.contains("ES256: new signing key"))
        #expect(rotated.stdout.contains("signs from"))
        #expect(rotated.stdout.contains("stays in the JWKS until"))
        #expect(!rotated.stdout.contains("RS256"))
        let after = try #require(cliJSON(try database.portico(["keys", "list", "--json"]).stdout)?.arrayValue)
        #expect(after.count == before.count + 1)
        let current = after.compactMap(\.objectValue).filter { $0["current"] == .bool(true) }
        #expect(current.count == 4)
        let waiting = after.compactMap(\.objectValue).filter { $0["state"] == .string("published") }
        #expect(waiting.count == 1)
        #expect(waiting.first?["alg"] == .string("ES256"))
        let human = try database.portico(["keys", "list"])
        #expect(human.stdout.contains("signs from"))

        let bad = try database.portico(["keys", "rotate", "--alg", "HS256"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("unknown algorithm 'HS256'"))
        #expect(bad.stderr.split(separator: "\n").count == 1)
        let help = try PorticoProcess.run(["keys", "rotate", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("without --alg, for all four"))
    }
}
