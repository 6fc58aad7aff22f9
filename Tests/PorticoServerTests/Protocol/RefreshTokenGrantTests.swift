import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

@Suite struct RefreshTokenGrantTests {
    @Test func everyUseRotatesAndTheNewTokenWorks() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(introspection: true)
            let credentials = ClientCredentials.of(client)
            let first = try await harness.signIn(user, to: client, scopes: ["openid", "profile"])
            var refreshToken = try #require(first.string("refresh_token"))
            var seen: Set<String> = [refreshToken]
            for _ in 0..<3 {
                let reply = try await harness.refresh(refreshToken, client: credentials)
                #expect(reply.status == 200, "\(reply.text)")
                #expect(reply.header("Cache-Control") == "no-store")
                #expect(reply.string("scope") == "openid profile")
                #expect(reply.string("id_token") != nil)
                let access = try #require(reply.string("access_token"))
                #expect(try await harness.resource("/oauth/userinfo", token: access).status == 200)
                refreshToken = try #require(reply.string("refresh_token"))
                #expect(seen.insert(refreshToken).inserted)
            }
            let introspected = try await harness.introspect(refreshToken, client: credentials).json
            #expect(introspected["active"] == true)
            #expect(introspected["token_type"] == "refresh_token")
            #expect(introspected["scope"] == "openid profile")
            #expect(introspected["client_id"] == .string(client.id))
            #expect(introspected["sub"] == .string(user.id))
        }
    }

    @Test func reuseAfterTheGracePeriodRevokesTheWholeFamily() async throws {
        let clock = TestClock()
        try await ProviderHarness.with(clock: clock) { harness in
            let (user, _, credentials, original) = try await harness.signedInGrant()
            let rotated = try await harness.refresh(original, client: credentials)
            let current = try #require(rotated.string("refresh_token"))

            clock.advance(by: 31)
            let reuse = try await harness.refresh(original, client: credentials)
            #expect(reuse.status == 400)
            #expect(reuse.string("error") == "invalid_grant")

            let afterRevocation = try await harness.refresh(current, client: credentials)
            #expect(afterRevocation.string("error") == "invalid_grant")
            #expect(try await harness.introspect(current, client: credentials).json["active"] == false)
            let audit = try harness.store.read { try $0.recentAuditEvents(limit: 10) }
            #expect(audit.contains { $0.action == "token.refresh_reuse_detected" && $0.subject == user.id })
        }
    }

    @Test func aRetryWithinTheGracePeriodGetsAFreshWorkingToken() async throws {
        try await ProviderHarness.with { harness in
            let (_, _, credentials, original) = try await harness.signedInGrant()
            // The first response is "lost"; the client retries twice with the same token.
            let lost = try #require(try await harness.refresh(original, client: credentials).string("refresh_token"))
            let retry = try await harness.refresh(original, client: credentials)
            #expect(retry.status == 200, "\(retry.text)")
            let secondRetry = try await harness.refresh(original, client: credentials)
            #expect(secondRetry.status == 200, "\(secondRetry.text)")
            let fresh = try #require(secondRetry.string("refresh_token"))
            let retried = try #require(retry.string("refresh_token"))
            #expect(Set([original, lost, retried, fresh]).count == 4)

            // Only the newest token is live; the superseded ones are not.
            #expect(try await harness.introspect(fresh, client: credentials).json["active"] == true)
            #expect(try await harness.introspect(lost, client: credentials).json["active"] == false)
            #expect(try await harness.introspect(retried, client: credentials).json["active"] == false)

            let next = try await harness.refresh(fresh, client: credentials)
            #expect(next.status == 200, "\(next.text)")
            #expect(
                try await harness.introspect(try #require(next.string("refresh_token")), client: credentials)
                    .json["active"] == true)
        }
    }

    @Test func theOldTokenAfterItsSuccessorWasUsedIsReuseEvenWithinTheGracePeriod() async throws {
        try await ProviderHarness.with { harness in
            let (_, _, credentials, original) = try await harness.signedInGrant()
            let second = try #require(try await harness.refresh(original, client: credentials).string("refresh_token"))
            let third = try #require(try await harness.refresh(second, client: credentials).string("refresh_token"))
            let stolen = try await harness.refresh(original, client: credentials)
            #expect(stolen.string("error") == "invalid_grant")
            #expect(try await harness.refresh(third, client: credentials).string("error") == "invalid_grant")
        }
    }

    /// A token names its family; only that family's tokens carry the id, so anything else
    /// naming it is an old token (or one made from an old token) and counts as reuse — but
    /// only for the client the family belongs to, and an unknown family is merely invalid.
    @Test func aTokenNamingTheFamilyWithAnotherSecretIsReuse() async throws {
        try await ProviderHarness.with { harness in
            let (_, _, credentials, current) = try await harness.signedInGrant()
            let other = try harness.addConfidentialClient()
            let familyID = try #require(current.split(separator: ".").first)
            let altered = "\(familyID).\(SecureRandom.token())"

            let unknown = try await harness.refresh(
                "\(RecordIdentifier.random()).\(SecureRandom.token())", client: credentials)
            #expect(unknown.string("error") == "invalid_grant")
            let wrongClient = try await harness.refresh(altered, client: ClientCredentials.of(other))
            #expect(wrongClient.string("error") == "invalid_grant")
            #expect(try await harness.introspect(current, client: credentials).json["active"] == true)

            let reuse = try await harness.refresh(altered, client: credentials)
            #expect(reuse.string("error") == "invalid_grant")
            #expect(try await harness.refresh(current, client: credentials).string("error") == "invalid_grant")
            #expect(try harness.store.refreshFamily(id: String(familyID))?.isRevoked == true)
        }
    }

    /// Only hashes of refresh tokens are kept (DESIGN, "Tokens"), retries in the grace period
    /// included: none of the tokens handed out appears in the database file or its log. And a
    /// token issued by a retry is dated from the retry, not from the sign-in.
    @Test func refreshTokensAreStoredOnlyAsHashes() async throws {
        let clock = TestClock()
        try await ProviderHarness.with(clock: clock) { harness in
            let (_, _, credentials, original) = try await harness.signedInGrant()
            clock.advance(by: 100)
            let before = TokenIssuer.seconds(clock.now)
            let rotated = try #require(try await harness.refresh(original, client: credentials).string("refresh_token"))
            let retried = try #require(try await harness.refresh(original, client: credentials).string("refresh_token"))
            let iat = try #require(try await harness.introspect(retried, client: credentials).json["iat"]?.integerValue)
            #expect(iat >= before && iat <= TokenIssuer.seconds(clock.now))

            let files = try FileManager.default.contentsOfDirectory(
                at: harness.directory, includingPropertiesForKeys: nil
            )
            .filter { $0.lastPathComponent.hasPrefix("portico.db") }
            #expect(files.contains { $0.lastPathComponent == "portico.db-wal" })
            let contents = try files.map { try Data(contentsOf: $0) }
            for token in [original, rotated, retried] {
                let secret = Data(try #require(token.split(separator: ".").last).utf8)
                #expect(secret.count == 43)
                #expect(contents.allSatisfy { $0.range(of: secret) == nil }, "a refresh token is stored in clear")
            }
        }
    }

    @Test func aShortGraceLetsTheSameRetryCountAsReuse() async throws {
        var lifetimes = TokenLifetimes()
        lifetimes.refreshReuseGrace = 0
        let clock = TestClock()
        try await ProviderHarness.with(clock: clock, configuration: .testing { $0.lifetimes = lifetimes }) { harness in
            let (_, _, credentials, original) = try await harness.signedInGrant(
                client: try harness.addPublicClient(), scopes: ["profile"])
            let current = try #require(try await harness.refresh(original, client: credentials).string("refresh_token"))
            clock.advance(by: 2)
            #expect(try await harness.refresh(original, client: credentials).string("error") == "invalid_grant")
            #expect(try await harness.refresh(current, client: credentials).string("error") == "invalid_grant")
        }
    }

    @Test func scopeMayNarrowButNotWiden() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient()
            let credentials = ClientCredentials.of(client)
            let first = try await harness.signIn(user, to: client, scopes: ["openid", "profile", "postal_code"])
            var refreshToken = try #require(first.string("refresh_token"))

            let widened = try await harness.refresh(refreshToken, client: credentials, scope: "openid email")
            #expect(widened.status == 400)
            #expect(widened.string("error") == "invalid_scope")

            // The refused request changed nothing: the same token still works.
            let narrowed = try await harness.refresh(refreshToken, client: credentials, scope: "postal_code")
            #expect(narrowed.status == 200, "\(narrowed.text)")
            #expect(narrowed.string("scope") == "postal_code")
            #expect(narrowed.string("id_token") == nil)
            let access = try #require(narrowed.string("access_token"))
            let claims = try (try await harness.jwksVerifier()).verify(access, algorithms: [.es256]).claims()
            #expect(claims["scope"] == "postal_code")
            let profile = try await harness.resource("/user/profile", token: access)
            #expect(profile.json == ["postal_code": "10115"])
            #expect(try await harness.resource("/oauth/userinfo", token: access).status == 403)

            refreshToken = try #require(narrowed.string("refresh_token"))
            let full = try await harness.refresh(refreshToken, client: credentials)
            #expect(full.string("scope") == "openid profile postal_code")
        }
    }

    @Test func theFamilyIsBoundToItsClientAccountAndRevocation() async throws {
        try await ProviderHarness.with { harness in
            let (user, _, credentials, refreshToken) = try await harness.signedInGrant()
            let other = try harness.addConfidentialClient()

            let stolen = try await harness.refresh(refreshToken, client: ClientCredentials.of(other))
            #expect(stolen.string("error") == "invalid_grant")
            let unknown = try await harness.refresh(SecureRandom.token(), client: credentials)
            #expect(unknown.string("error") == "invalid_grant")
            let missing = try await harness.token([("grant_type", "refresh_token")], client: credentials)
            #expect(missing.string("error") == "invalid_request")

            var disabled = user
            disabled.isDisabled = true
            try harness.store.update(disabled)
            #expect(try await harness.refresh(refreshToken, client: credentials).string("error") == "invalid_grant")
            try harness.store.update(user)
            let reply = try await harness.refresh(refreshToken, client: credentials)
            #expect(reply.status == 200, "\(reply.text)")

            let next = try #require(reply.string("refresh_token"))
            let families = try harness.store.read { try $0.refreshFamilies(userID: user.id, includeRevoked: false) }
            for family in families {
                _ = try harness.store.transaction { try $0.revokeRefreshFamily(id: family.id, now: Date()) }
            }
            #expect(try await harness.refresh(next, client: credentials).string("error") == "invalid_grant")
        }
    }

    /// The grant rotates before it checks the client (one lookup instead of two), so a used
    /// token presented by another client must still be refused without counting as reuse:
    /// revoking the family then would let any client sign a person out of someone else's app.
    @Test func aUsedTokenFromAnotherClientIsRefusedWithoutRevokingTheFamily() async throws {
        var lifetimes = TokenLifetimes()
        lifetimes.refreshReuseGrace = 0
        let clock = TestClock()
        try await ProviderHarness.with(clock: clock, configuration: .testing { $0.lifetimes = lifetimes }) { harness in
            let (_, _, credentials, original) = try await harness.signedInGrant(scopes: ["profile"])
            let other = try harness.addConfidentialClient()
            let current = try #require(try await harness.refresh(original, client: credentials).string("refresh_token"))
            clock.advance(by: 2)

            let foreign = try await harness.refresh(original, client: ClientCredentials.of(other))
            #expect(foreign.string("error") == "invalid_grant")
            #expect(foreign.string("error_description")?.contains("another client") == true)
            let next = try await harness.refresh(current, client: credentials)
            #expect(next.status == 200, "\(next.text)")
        }
    }

    @Test func anExpiredRefreshTokenIsInvalidGrant() async throws {
        let clock = TestClock()
        try await ProviderHarness.with(clock: clock) { harness in
            let user = try harness.addUser()
            let client = try harness.addPublicClient()
            let refreshToken = try #require(
                try await harness.signIn(user, to: client, scopes: ["profile"]).string("refresh_token"))
            clock.advance(by: 31 * 24 * 3600)
            let reply = try await harness.refresh(refreshToken, client: ClientCredentials.of(client))
            #expect(reply.string("error") == "invalid_grant")
        }
    }
}

extension ProviderHarness {
    /// What most refresh tests start from: a new person signed in to `client` (by default a new
    /// confidential one) for `scopes`, the client's credentials and the first refresh token.
    fileprivate func signedInGrant(client: Client? = nil, scopes: [String] = ["openid"]) async throws
        -> (user: UserRecord, client: Client, credentials: ClientCredentials, refreshToken: String)
    {
        let user = try addUser()
        let client = try client ?? addConfidentialClient(introspection: true)
        let reply = try await signIn(user, to: client, scopes: scopes)
        return (user, client, ClientCredentials.of(client), try #require(reply.string("refresh_token")))
    }
}
