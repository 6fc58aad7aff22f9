import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// `POST`, `GET` and `DELETE /oauth/account-links` over real HTTP: every status the DESIGN
/// names, conflicts from either side, and every refusal as an OAuth JSON error.
@Suite("Account-link endpoints") struct AccountLinkEndpointTests {
    @Test("link → 201, the same pair again → 200, GET finds it, DELETE → 204, then 404")
    func linkFindUnlink() async throws {
        try await ProviderHarness.with { harness in
            let signedIn = try await harness.hostSignIn(to: try harness.addHost())
            let created = try await harness.link(signedIn, hostUserID: "mc-1001")
            #expect(created.status == 201, "\(created.text)")
            let linkID = try #require(created.string("link_id"))
            #expect(created.string("user_id") == signedIn.user.id)
            #expect(created.string("host_user_id") == "mc-1001")
            #expect(created.header("Cache-Control") == "no-store")
            let again = try await harness.link(signedIn, hostUserID: "mc-1001")
            #expect(again.status == 200)
            #expect(again.string("link_id") == linkID)
            let found = try await harness.findLink(hostUserID: "mc-1001", client: signedIn.credentials)
            #expect(found.status == 200)
            #expect(found.json == created.json)
            #expect(try await harness.findLink(hostUserID: "mc-9", client: signedIn.credentials).status == 404)
            let events = try harness.store.recentAuditEvents(limit: 5).map(\.action)
            #expect(events.contains("account_link.create"))

            let deleted = try await harness.unlink(linkID, client: signedIn.credentials)
            #expect(deleted.status == 204, "\(deleted.text)")
            #expect(try await harness.findLink(hostUserID: "mc-1001", client: signedIn.credentials).status == 404)
            #expect(try await harness.unlink(linkID, client: signedIn.credentials).status == 404)
            #expect(try harness.store.recentAuditEvents(limit: 5).map(\.action).contains("account_link.unbind"))
        }
    }

    @Test("either side already linked to someone else is 409 link_conflict")
    func conflicts() async throws {
        try await ProviderHarness.with { harness in
            let host = try harness.addHost()
            let ann = try await harness.hostSignIn(to: host)
            let bob = try await harness.hostSignIn(try harness.addUser(email: "bob@example.com", name: "Bob"), to: host)
            #expect(try await harness.link(ann, hostUserID: "mc-1").status == 201)
            // Another person for the same host user.
            let taken = try await harness.link(bob, hostUserID: "mc-1")
            #expect(taken.status == 409)
            #expect(taken.error == "link_conflict")
            // The same person for another host user.
            let twice = try await harness.link(ann, hostUserID: "mc-2")
            #expect(twice.status == 409)
            #expect(twice.error == "link_conflict")
            // Another host may link the same person and the same host user id.
            let other = try await harness.hostSignIn(ann.user, to: try harness.addHost(name: "Other Host"))
            #expect(try await harness.link(other, hostUserID: "mc-1").status == 201)
        }
    }

    @Test("a pairwise host sees its own subject as user_id, never the account id")
    func pairwiseSubject() async throws {
        try await ProviderHarness.with { harness in
            let signedIn = try await harness.hostSignIn(to: try harness.addHost(subjectType: .pairwise))
            let created = try await harness.link(signedIn, hostUserID: "mc-7")
            #expect(created.status == 201, "\(created.text)")
            let subject = try await harness.claims(of: signedIn.accessToken).subject
            #expect(created.string("user_id") == subject)
            #expect(created.string("user_id") != signedIn.user.id)
        }
    }

    @Test("the host must authenticate as a confidential client, on every method")
    func hostAuthentication() async throws {
        try await ProviderHarness.with { harness in
            let signedIn = try await harness.hostSignIn(to: try harness.addHost())
            let linkID = try #require(try await harness.link(signedIn, hostUserID: "mc-1").string("link_id"))
            let wrong = ClientCredentials.basic(id: signedIn.host.id, secret: "wrong")
            let form = [("access_token", signedIn.accessToken), ("host_user_id", "mc-1")]
            for reply in [
                try await harness.request("POST", "/oauth/account-links", form: form),
                try await harness.request("POST", "/oauth/account-links", form: form, client: wrong),
                try await harness.findLink(hostUserID: "mc-1", client: .none),
                try await harness.findLink(hostUserID: "mc-1", client: wrong),
                try await harness.unlink(linkID, client: .none),
                try await harness.unlink(linkID, client: wrong),
            ] {
                #expect(reply.status == 401)
                #expect(reply.error == "invalid_client")
            }
            // client_secret_post works as at the token endpoint.
            let posted = try await harness.request(
                "POST", "/oauth/account-links", form: form,
                client: .post(id: signedIn.host.id, secret: ProviderHarness.exchangeSecret))
            #expect(posted.status == 200, "\(posted.text)")
            // A public client names itself but proves nothing.
            let app = try harness.addPublicClient()
            let publicReply = try await harness.request("POST", "/oauth/account-links", form: form, client: .id(app.id))
            #expect(publicReply.status == 401)
            #expect(publicReply.error == "invalid_client")
            // The link is untouched by every refusal.
            #expect(try harness.store.accountLink(id: linkID) != nil)
        }
    }

    @Test("bad input is an OAuth error, never a 500")
    func badInput() async throws {
        try await ProviderHarness.with { harness in
            let host = try harness.addHost()
            let signedIn = try await harness.hostSignIn(to: host)
            let credentials = signedIn.credentials
            func post(_ form: [(String, String)]) async throws -> TestReply {
                try await harness.request("POST", "/oauth/account-links", form: form, client: credentials)
            }
            let missingToken = try await post([("host_user_id", "mc-1")])
            #expect(missingToken.status == 400)
            #expect(missingToken.error == "invalid_request")
            #expect(try await post([("access_token", signedIn.accessToken)]).error == "invalid_request")
            let long = String(repeating: "x", count: 256)
            #expect(try await post([("access_token", signedIn.accessToken), ("host_user_id", long)]).status == 400)
            #expect(
                try await post([("access_token", signedIn.accessToken), ("host_user_id", "a\u{1}b")]).error
                    == "invalid_request")
            let garbage = try await post([("access_token", "not-a-token"), ("host_user_id", "mc-1")])
            #expect(garbage.status == 401)
            #expect(garbage.error == "invalid_token")
            let notForm = try await harness.request(
                "POST", "/oauth/account-links", client: credentials, headers: ["Content-Type": "application/json"],
                rawBody: "{}")
            #expect(notForm.status == 400)
            #expect(notForm.error == "invalid_request")
            // GET: the parameter is required, and a secret never goes in the URL.
            let noUser = try await harness.request("GET", "/oauth/account-links", client: credentials)
            #expect(noUser.status == 400)
            #expect(noUser.error == "invalid_request")
            let secretInURL = try await harness.request(
                "GET", "/oauth/account-links?host_user_id=a&client_id=\(host.id)&client_secret=x")
            #expect(secretInURL.status == 400)
            // DELETE of something that never existed.
            #expect(try await harness.unlink("no-such-link", client: credentials).status == 404)
            #expect(try await harness.store.accountLinks(platformUserID: signedIn.user.id).isEmpty)
        }
    }

    @Test("the access token must be this host's, carry account_link, and be live")
    func tokenChecks() async throws {
        try await ProviderHarness.with { harness in
            let host = try harness.addHost()
            let other = try harness.addHost(name: "Other Host")
            let user = try harness.addUser()
            let atHost = try await harness.hostSignIn(user, to: host)
            let atOther = try await harness.hostSignIn(user, to: other)
            // Another client's token, presented by this host.
            let foreign = try await harness.link(atHost, hostUserID: "mc-1", accessToken: atOther.accessToken)
            #expect(foreign.status == 401)
            #expect(foreign.error == "invalid_token")
            // A token without account_link.
            let narrow = try await harness.hostSignIn(user, to: host, scopes: ["openid", "profile"])
            let unscoped = try await harness.link(narrow, hostUserID: "mc-1")
            #expect(unscoped.status == 403)
            #expect(unscoped.error == "insufficient_scope")
            // A revoked token.
            _ = try await harness.request(
                "POST", "/oauth/revoke", form: [("token", atHost.accessToken)], client: atHost.credentials)
            let revoked = try await harness.link(atHost, hostUserID: "mc-1")
            #expect(revoked.status == 401)
            #expect(revoked.error == "invalid_token")
            // An expired one.
            let fresh = try await harness.hostSignIn(user, to: host)
            harness.clock.advance(by: 3700)
            #expect(try await harness.link(fresh, hostUserID: "mc-1").error == "invalid_token")
            #expect(try harness.store.accountLinks(platformUserID: user.id).isEmpty)
        }
    }

    @Test("a host cannot see or unbind another host's link")
    func otherHostsLinks() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let mine = try await harness.hostSignIn(user, to: try harness.addHost())
            let theirs = try await harness.hostSignIn(user, to: try harness.addHost(name: "Other Host"))
            let linkID = try #require(try await harness.link(mine, hostUserID: "mc-1").string("link_id"))
            #expect(try await harness.findLink(hostUserID: "mc-1", client: theirs.credentials).status == 404)
            let refused = try await harness.unlink(linkID, client: theirs.credentials)
            #expect(refused.status == 404)
            #expect(refused.error == "not_found")
            #expect(try harness.store.accountLink(id: linkID) != nil)
        }
    }

    @Test("the same pair linked by eight requests at once: one 201, the others 200 with the same link")
    func concurrentLinks() async throws {
        try await ProviderHarness.with { harness in
            let signedIn = try await harness.hostSignIn(to: try harness.addHost())
            let replies = try await withThrowingTaskGroup(of: TestReply.self) { group in
                for _ in 0..<8 { group.addTask { try await harness.link(signedIn, hostUserID: "mc-1") } }
                var replies: [TestReply] = []
                for try await reply in group { replies.append(reply) }
                return replies
            }
            #expect(replies.filter { $0.status == 201 }.count == 1)
            #expect(replies.filter { $0.status == 200 }.count == 7, "\(replies.map(\.status))")
            #expect(Set(replies.compactMap { $0.string("link_id") }).count == 1)
            #expect(try harness.store.accountLinks(platformUserID: signedIn.user.id).count == 1)
        }
    }
}
