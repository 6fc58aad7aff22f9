import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Token exchange's mini-program delegation over real HTTP: what is issued, where it works,
/// every refusal, and how unbinding and removing the host end it.
@Suite("Mini-program delegation") struct MiniProgramDelegationTests {
    /// A resource server the host may ask tokens for (so only delegation refuses it).
    static let orders = "https://orders.example/api"

    /// A host, its mini-program (profile and email only), and a person linked at the host.
    private func linked(_ harness: ProviderHarness) async throws -> (LinkedHost, Client, String) {
        let host = try harness.addHost(resources: [Self.orders])
        let mini = try harness.addMiniProgram(of: host, scopes: ["openid", "profile", "email"])
        let signedIn = try await harness.hostSignIn(to: host)
        let linked = try await harness.link(signedIn, hostUserID: "mc-1")
        try #require(linked.status == 201, "\(linked.text)")
        return (signedIn, mini, try #require(linked.string("link_id")))
    }

    @Test("the host gets an at+jwt for its mini-program: client_id, act, narrowed scopes, no refresh")
    func issuesDelegatedToken() async throws {
        try await ProviderHarness.with { harness in
            let (signedIn, mini, _) = try await linked(harness)
            let reply = try await harness.delegate(signedIn, to: mini.id)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.string("issued_token_type") == ExchangeURI.accessToken)
            #expect(reply.string("token_type") == "Bearer")
            #expect(reply.json["refresh_token"] == nil)
            #expect(reply.json["id_token"] == nil)
            // The subject's scopes the mini-program is registered for: account_link and
            // offline_access stay with the host.
            #expect(reply.string("scope") == "openid profile email")
            let token = try #require(reply.string("access_token"))
            let claims = try await harness.claims(of: token)
            let subject = try await harness.claims(of: signedIn.accessToken)
            #expect(claims["client_id"]?.stringValue == mini.id)
            #expect(claims["act"] == .object(["sub": .string(signedIn.host.id)]))
            #expect(claims.subject == signedIn.user.id)
            #expect(claims.audience == [harness.issuer])
            #expect(try #require(claims.expiresAt) <= (try #require(subject.expiresAt)))
            #expect(claims.jwtID != subject.jwtID)
            // `scope` narrows further.
            let narrowed = try await harness.delegate(signedIn, to: mini.id, scope: "profile")
            #expect(narrowed.status == 200, "\(narrowed.text)")
            #expect(narrowed.string("scope") == "profile")
        }
    }

    @Test("the mini-program's token works at /user/profile and /oauth/userinfo")
    func tokenWorksAtResourceEndpoints() async throws {
        try await ProviderHarness.with { harness in
            let (signedIn, mini, _) = try await linked(harness)
            let token = try #require(try await harness.delegate(signedIn, to: mini.id).string("access_token"))
            let profile = try await harness.resource("/user/profile", token: token)
            #expect(profile.status == 200, "\(profile.text)")
            #expect(profile.string("name") == signedIn.user.name)
            #expect(profile.string("user_id") == signedIn.user.id)
            let userinfo = try await harness.resource("/oauth/userinfo", token: token)
            #expect(userinfo.status == 200, "\(userinfo.text)")
            #expect(userinfo.string("sub") == signedIn.user.id)
            #expect(userinfo.string("email") == signedIn.user.email)
        }
    }

    @Test("a pairwise mini-program of a pairwise host gets its own subject, and its token finds the person")
    func pairwiseMiniProgram() async throws {
        try await ProviderHarness.with { harness in
            let host = try harness.addHost(subjectType: .pairwise)
            let mini = try harness.addMiniProgram(of: host, scopes: ["openid", "profile"], subjectType: "pairwise")
            let signedIn = try await harness.hostSignIn(to: host)
            #expect(try await harness.link(signedIn, hostUserID: "mc-1").status == 201)
            let token = try #require(try await harness.delegate(signedIn, to: mini.id).string("access_token"))
            let subject = try await harness.claims(of: token).subject
            #expect(subject != signedIn.user.id)
            #expect(subject != (try await harness.claims(of: signedIn.accessToken).subject))
            let profile = try await harness.resource("/oauth/userinfo", token: token)
            #expect(profile.status == 200, "\(profile.text)")
            #expect(profile.string("sub") == subject)
        }
    }

    @Test("the delegated token lives no longer than the subject token")
    func lifetimeBoundedBySubject() async throws {
        try await ProviderHarness.with { harness in
            let (signedIn, mini, _) = try await linked(harness)
            let subjectExpiry = try #require(try await harness.claims(of: signedIn.accessToken).expiresAt)
            harness.clock.advance(by: 3000)
            let reply = try await harness.delegate(signedIn, to: mini.id)
            #expect(reply.status == 200, "\(reply.text)")
            let token = try #require(reply.string("access_token"))
            let expiry = try #require(try await harness.claims(of: token).expiresAt)
            #expect(expiry == subjectExpiry)
            #expect((reply.json["expires_in"]?.integerValue ?? 0) <= 600)
        }
    }

    @Test("refusals: invalid_target, invalid_request, invalid_scope, unauthorized_client")
    func refusals() async throws {
        try await ProviderHarness.with { harness in
            let (signedIn, mini, _) = try await linked(harness)
            // Another host's mini-program, an ordinary client, a nonexistent one.
            let otherHost = try harness.addHost(name: "Other Host")
            let otherMini = try harness.addMiniProgram(of: otherHost, name: "Their Mini")
            #expect(try await harness.delegate(signedIn, to: otherMini.id).error == "invalid_target")
            #expect(try await harness.delegate(signedIn, to: otherHost.id).error == "invalid_target")
            #expect(try await harness.delegate(signedIn, to: "no-such-client").error == "invalid_target")
            // A resource beside the audience, even one the host may ask for itself.
            let withResource = try await harness.delegate(signedIn, to: mini.id, resource: Self.orders)
            #expect(withResource.error == "invalid_target")
            // Scopes beyond the subject's or the mini-program's.
            #expect(try await harness.delegate(signedIn, to: mini.id, scope: "postal_code").error == "invalid_scope")
            #expect(try await harness.delegate(signedIn, to: mini.id, scope: "account_link").error == "invalid_scope")
            // A subject token that is garbage, another client's, or without account_link.
            #expect(try await harness.delegate(signedIn, to: mini.id, subjectToken: "x.y.z").error == "invalid_request")
            let atOther = try await harness.hostSignIn(signedIn.user, to: otherHost)
            let foreign = try await harness.delegate(signedIn, to: mini.id, subjectToken: atOther.accessToken)
            #expect(foreign.error == "invalid_request")
            let plain = try await harness.hostSignIn(signedIn.user, to: signedIn.host, scopes: ["openid", "profile"])
            #expect(try await harness.delegate(plain, to: mini.id).error == "invalid_request")
            // A delegated token cannot be delegated again.
            let delegated = try #require(try await harness.delegate(signedIn, to: mini.id).string("access_token"))
            #expect(
                try await harness.delegate(signedIn, to: mini.id, subjectToken: delegated).error == "invalid_request")
            // A public client cannot delegate even with a token of its own.
            let app = try harness.addExchangeClient(name: "Public", group: nil, isPublic: true)
            let publicReply = try await harness.exchange(
                as: app, subjectToken: signedIn.accessToken, subjectTokenType: ExchangeURI.accessToken,
                audience: mini.id)
            #expect(publicReply.error == "unauthorized_client")
        }
    }

    @Test("no live link of the person and the host is invalid_request (RFC 8693 §2.2.2)")
    func needsLiveLink() async throws {
        try await ProviderHarness.with { harness in
            let host = try harness.addHost()
            let mini = try harness.addMiniProgram(of: host)
            let signedIn = try await harness.hostSignIn(to: host)
            let unlinked = try await harness.delegate(signedIn, to: mini.id)
            #expect(unlinked.status == 400)
            #expect(unlinked.error == "invalid_request")
            // Linked, it works; the link gone (by the store, not the revoking DELETE), it stops.
            let link = try await harness.link(signedIn, hostUserID: "mc-1")
            let delegated = try #require(try await harness.delegate(signedIn, to: mini.id).string("access_token"))
            #expect(try await harness.resource("/user/profile", token: delegated).status == 200)
            try harness.store.transaction { _ = try $0.deleteAccountLink(id: link.string("link_id") ?? "") }
            #expect(try await harness.delegate(signedIn, to: mini.id).error == "invalid_request")
            #expect(try await harness.resource("/user/profile", token: delegated).status == 401)
            // A link made later does not bring back a token delegated under the earlier one.
            harness.clock.advance(by: 2)
            #expect(try await harness.link(signedIn, hostUserID: "mc-1").status == 201)
            #expect(try await harness.resource("/user/profile", token: delegated).status == 401)
            #expect(try await harness.delegate(signedIn, to: mini.id).status == 200)
        }
    }

    @Test("unbinding revokes the host's tokens and every delegated token")
    func unbindRevokes() async throws {
        try await ProviderHarness.with { harness in
            let (signedIn, mini, linkID) = try await linked(harness)
            let delegated = try #require(try await harness.delegate(signedIn, to: mini.id).string("access_token"))
            #expect(try await harness.resource("/user/profile", token: delegated).status == 200)
            #expect(try await harness.resource("/user/profile", token: signedIn.accessToken).status == 200)
            // Taken before the unlink: the clock runs in real time, and a loaded machine may take
            // over a second for the requests between the unlink and the check below.
            let issuedBefore = harness.clock.now.addingTimeInterval(-1)
            #expect(try await harness.unlink(linkID, client: signedIn.credentials).status == 204)
            #expect(try await harness.resource("/user/profile", token: delegated).status == 401)
            #expect(try await harness.resource("/oauth/userinfo", token: delegated).status == 401)
            #expect(try await harness.resource("/user/profile", token: signedIn.accessToken).status == 401)
            let refreshed = try await harness.refresh(signedIn.refreshToken, client: signedIn.credentials)
            #expect(refreshed.error == "invalid_grant")
            #expect(try harness.store.consent(userID: signedIn.user.id, clientID: signedIn.host.id) == nil)
            // The mini-program's grant is revoked as such, not only refused for want of a link.
            #expect(
                try harness.store.read {
                    try $0.isAccessTokenRevoked(
                        id: "any", userID: signedIn.user.id, clientID: mini.id, issuedAt: issuedBefore)
                })
            // Linking again (after a new sign-in) does not bring the old delegated token back.
            // (A token issued in the second of the revocation counts as before it.)
            harness.clock.advance(by: 2)
            let again = try await harness.hostSignIn(signedIn.user, to: signedIn.host)
            #expect(try await harness.link(again, hostUserID: "mc-1").status == 201)
            #expect(try await harness.resource("/user/profile", token: delegated).status == 401)
            let fresh = try #require(try await harness.delegate(again, to: mini.id).string("access_token"))
            #expect(try await harness.resource("/user/profile", token: fresh).status == 200)
        }
    }

    @Test("a disabled mini-program gets nothing and its tokens stop working")
    func disabledMiniProgram() async throws {
        try await ProviderHarness.with { harness in
            let (signedIn, mini, _) = try await linked(harness)
            let delegated = try #require(try await harness.delegate(signedIn, to: mini.id).string("access_token"))
            try harness.store.transaction {
                _ = try $0.disableMiniPrograms(hostClientID: signedIn.host.id, now: Date())
            }
            #expect(try await harness.resource("/user/profile", token: delegated).status == 401)
            #expect(try await harness.delegate(signedIn, to: mini.id).error == "invalid_target")
        }
    }
}

/// What the second security review found of delegated tokens (issue 33): they die with the
/// host's grant, and only a token meant for this provider can be delegated or linked.
@Suite("Mini-program delegation: the host's grant") struct DelegationFollowsTheHostsGrantTests {
    static let orders = "https://orders.example/api"

    private func linked(_ harness: ProviderHarness) async throws -> (LinkedHost, Client) {
        let host = try harness.addHost(resources: [Self.orders])
        let mini = try harness.addMiniProgram(of: host, scopes: ["openid", "profile", "email"])
        let signedIn = try await harness.hostSignIn(to: host)
        try #require(try await harness.link(signedIn, hostUserID: "mc-1").status == 201)
        return (signedIn, mini)
    }

    @Test("Remove of the host in Your Account ends its mini-programs' tokens at once, and unbinds the link")
    func removingTheHostEndsDelegatedTokens() async throws {
        try await ProviderHarness.with { harness in
            let (signedIn, mini) = try await linked(harness)
            let delegated = try #require(try await harness.delegate(signedIn, to: mini.id).string("access_token"))
            #expect(try await harness.resource("/user/profile", token: delegated).status == 200)
            let browser = harness.browser()
            let login = try await browser.signIn(at: "/login")
            #expect(login.status == 303, "\(login.text.prefix(300))")
            let page = try await browser.get("/account")
            let csrf = try #require(page.hiddenField("csrf_token"))
            let removed = try await browser.post("/account", [("csrf_token", csrf), ("revoke", signedIn.host.id)])
            #expect(removed.status == 303)
            #expect(try await harness.resource("/user/profile", token: delegated).status == 401)
            #expect(try await harness.resource("/oauth/userinfo", token: delegated).status == 401)
            #expect(try harness.store.read { try $0.accountLinks(platformUserID: signedIn.user.id) }.isEmpty)
        }
    }

    @Test("revoking every grant of the person (a password reset) ends delegated tokens at once")
    func revokingAllGrantsEndsDelegatedTokens() async throws {
        try await ProviderHarness.with { harness in
            let (signedIn, mini) = try await linked(harness)
            let delegated = try #require(try await harness.delegate(signedIn, to: mini.id).string("access_token"))
            #expect(try await harness.resource("/user/profile", token: delegated).status == 200)
            // What a password reset does to the person's grants (PasswordResetEndpoint).
            let now = harness.clock.now
            try harness.store.transaction {
                try GrantRevocation.revokeAllAccessTokens(
                    userID: signedIn.user.id, now: now, accessTokenLifetime: 3600, in: $0)
            }
            #expect(try await harness.resource("/user/profile", token: delegated).status == 401)
            #expect(try await harness.resource("/oauth/userinfo", token: delegated).status == 401)
        }
    }

    @Test("a subject token meant for another resource server can be neither delegated nor linked")
    func aNarrowedSubjectTokenIsRefused() async throws {
        try await ProviderHarness.with { harness in
            let (signedIn, mini) = try await linked(harness)
            let code = try harness.issueExchangeCode(
                for: signedIn.host, user: signedIn.user, scopes: ProviderHarness.hostScopes, resource: Self.orders)
            let narrowed = try await harness.redeem(code, client: signedIn.credentials)
            let token = try #require(narrowed.string("access_token"), "\(narrowed.text)")
            #expect(try await harness.claims(of: token).audience == [Self.orders])
            let delegated = try await harness.delegate(signedIn, to: mini.id, subjectToken: token)
            #expect(delegated.error == "invalid_request", "\(delegated.text)")
            let linkedAgain = try await harness.link(signedIn, hostUserID: "mc-2", accessToken: token)
            #expect(linkedAgain.status == 401, "\(linkedAgain.text)")
        }
    }
}
