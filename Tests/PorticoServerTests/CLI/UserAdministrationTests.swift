import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// `portico user list | disable | enable | remove` through the real binary, against the database
/// of a running provider: what they change holds at the token and resource endpoints at once.
@Suite(.serialized) struct UserAdministrationTests {
    /// A signed-in person with a session, a consent and a live refresh token.
    private struct Account {
        let user: UserRecord
        let client: Client
        let accessToken: String
        let refreshToken: String
    }

    private func account(in harness: ProviderHarness) async throws -> Account {
        let user = try harness.addUser()
        let client = try harness.addConfidentialClient(introspection: true)
        let reply = try await harness.signIn(user, to: client, scopes: ["openid", "profile"])
        try harness.store.insert(
            BrowserSession(
                token: SecureRandom.token(), userID: user.id, expiresAt: Date().addingTimeInterval(3600),
                authTime: Date()))
        _ = try harness.store.transaction {
            try ConsentPolicy().grant(
                userID: user.id, clientID: client.id, scopes: ["openid", "profile"], in: $0, now: Date())
        }
        return Account(
            user: user, client: client, accessToken: try #require(reply.string("access_token")),
            refreshToken: try #require(reply.string("refresh_token")))
    }

    @Test func listShowsEveryAccountAsTextAndJSON() throws {
        let database = try CLIDatabase()
        for (email, name) in [("ann@example.com", "Ann Example"), ("bob@example.com", "Bob Example")] {
            let added = try database.portico(
                ["user", "add", "--email", email, "--name", name, "--password-stdin"], stdin: "correct horse battery\n")
            #expect(added.status == 0, "\(added.stderr)")
        }
        #expect(try database.portico(["user", "disable", "BOB@example.com"]).status == 0)

        let json = try database.portico(["user", "list", "--json"])
        #expect(json.status == 0)
        // Oldest first; both were made within the same second, so compare them by address.
        let users = try #require(cliJSON(json.stdout)?.arrayValue).compactMap(\.objectValue).sorted {
            ($0["email"]?.stringValue ?? "") < ($1["email"]?.stringValue ?? "")
        }
        #expect(users.map { $0["email"]?.stringValue } == ["ann@example.com", "bob@example.com"])
        #expect(users.map { $0["disabled"] } == [.bool(false), .bool(true)])
        #expect(Set(users[0].keys) == ["user_id", "email", "name", "disabled", "created"])
        #expect(!json.stdout.contains("argon2"))

        let text = try database.portico(["user", "list"])
        #expect(text.stdout.contains("Ann Example"))
        #expect(text.stdout.contains("disabled"))

        let empty = try CLIDatabase()
        #expect(try empty.portico(["user", "list"]).stdout.contains("no users yet"))
    }

    @Test func disablingStopsSignInSessionsAndTokensAndEnablingRestoresTokens() async throws {
        try await ProviderHarness.with { harness in
            let account = try await account(in: harness)
            let credentials = ClientCredentials.of(account.client)
            let disabled = try PorticoProcess.run([
                "user", "disable", account.user.email.uppercased(), "--database", harness.databaseURL,
            ])
            #expect(disabled.status == 0, "\(disabled.stderr)")
            #expect(disabled.stdout.contains("ended 1 session"))
            #expect(try harness.store.user(id: account.user.id)?.isDisabled == true)
            #expect(try harness.store.sessions(userID: account.user.id).isEmpty)

            let refused = try await harness.refresh(account.refreshToken, client: credentials)
            #expect(refused.status == 400)
            #expect(refused.string("error") == "invalid_grant")
            #expect(try await harness.resource("/oauth/userinfo", token: account.accessToken).status == 401)

            let again = try PorticoProcess.run([
                "user", "disable", account.user.id, "--database", harness.databaseURL,
            ])
            #expect(again.status == 0)
            #expect(again.stdout.contains("already disabled"))

            let enabled = try PorticoProcess.run(["user", "enable", account.user.id, "--database", harness.databaseURL])
            #expect(enabled.status == 0)
            let refreshed = try await harness.refresh(account.refreshToken, client: credentials)
            #expect(refreshed.status == 200, "\(refreshed.text)")
            let actions = try harness.store.read { try $0.recentAuditEvents(limit: 10) }.map(\.action)
            #expect(actions.contains("user.disable"))
            #expect(actions.contains("user.enable"))
        }
    }

    @Test func removingDeletesThePersonAndRevokesEverything() async throws {
        try await ProviderHarness.with { harness in
            let account = try await account(in: harness)
            let other = try harness.addUser(email: "bob@example.com", name: "Bob Example")
            let families = try harness.store.refreshFamilies(userID: account.user.id)
            #expect(families.count == 1)

            let removed = try PorticoProcess.run(["user", "remove", account.user.id, "--database", harness.databaseURL])
            #expect(removed.status == 0, "\(removed.stderr)")
            #expect(removed.stdout.contains("ended 1 session(s), revoked 1 refresh token family(ies) and 1 consent(s)"))

            #expect(try harness.store.user(id: account.user.id) == nil)
            #expect(try harness.store.user(email: account.user.email) == nil)
            #expect(try harness.store.sessions(userID: account.user.id).isEmpty)
            #expect(try harness.store.consents(userID: account.user.id).isEmpty)
            #expect(try harness.store.refreshFamily(id: families[0].id) == nil)
            #expect(try harness.store.user(id: other.id) != nil)

            let credentials = ClientCredentials.of(account.client)
            #expect(
                try await harness.refresh(account.refreshToken, client: credentials).string("error") == "invalid_grant")
            #expect(try await harness.resource("/oauth/userinfo", token: account.accessToken).status == 401)
            let introspection = try await harness.introspect(account.accessToken, client: credentials)
            #expect(introspection.json["active"] == .bool(false))

            // The audit log keeps the id only: no name or address of the removed person.
            let event = try #require(
                try harness.store.read { try $0.recentAuditEvents(limit: 10) }.first { $0.action == "user.remove" })
            #expect(event.subject == account.user.id)
            #expect(event.actor == "cli")
            #expect(!event.details.contains(account.user.email))
            #expect(!event.details.contains(account.user.name))

            let twice = try PorticoProcess.run(["user", "remove", account.user.id, "--database", harness.databaseURL])
            #expect(twice.status == 1)
            #expect(twice.stderr.contains("no user with id or e-mail address"))
            let missing = try PorticoProcess.run(["user", "remove", "--database", harness.databaseURL])
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("user remove needs a user ID or e-mail address"))
            let extra = try PorticoProcess.run(["user", "disable", "a", "b", "--database", harness.databaseURL])
            #expect(extra.status == 2)
        }
    }
}
