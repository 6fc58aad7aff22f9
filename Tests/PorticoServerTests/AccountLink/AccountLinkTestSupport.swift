import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// A host app, a person signed in to it with `account_link`, and what the host got.
struct LinkedHost {
    let host: Client
    let user: UserRecord
    let signIn: TestReply
    var accessToken: String { signIn.string("access_token") ?? "" }
    var refreshToken: String { signIn.string("refresh_token") ?? "" }
    var credentials: ClientCredentials { .basic(id: host.id, secret: ProviderHarness.exchangeSecret) }
}

extension ProviderHarness {
    /// The scopes a test host signs people in with.
    static let hostScopes = ["openid", "profile", "email", "account_link"]

    /// A confidential host app allowed `account_link` and token exchange.
    func addHost(name: String = "Host App", subjectType: SubjectType = .public, resources: [String] = []) throws
        -> Client
    {
        try addExchangeClient(
            name: name, group: nil, scopes: Self.hostScopes + ["offline_access"], resources: resources,
            subjectType: subjectType,
            redirectURI: "https://host.example/callback")
    }

    /// A mini-program of `host`, registered as `portico client add --mini-program-of` does.
    func addMiniProgram(
        of host: Client, name: String = "Mini Shop", scopes: [String] = [], subjectType: String = "public"
    ) throws -> Client {
        var registration = ClientRegistration(name: name, redirectURIs: [])
        registration.miniProgramOf = host.id
        registration.scopes = scopes
        registration.subjectType = subjectType
        if subjectType == "pairwise" { registration.sector = "mini.example" }
        return try registration.register(in: store).client
    }

    /// `user` (a new one unless given) signed in to `host` with `scopes`.
    func hostSignIn(
        _ user: UserRecord? = nil, to host: Client, scopes: [String] = ProviderHarness.hostScopes + ["offline_access"]
    ) async throws -> LinkedHost {
        let user = try user ?? addUser()
        let code = try issueExchangeCode(for: host, user: user, scopes: scopes)
        let reply = try await redeem(code, client: exchangeCredentials(host))
        try #require(reply.status == 200, "token endpoint said \(reply.status) \(reply.text)")
        return LinkedHost(host: host, user: user, signIn: reply)
    }

    /// `POST /oauth/account-links`.
    func link(_ signedIn: LinkedHost, hostUserID: String, accessToken: String? = nil) async throws -> TestReply {
        try await request(
            "POST", "/oauth/account-links",
            form: [("access_token", accessToken ?? signedIn.accessToken), ("host_user_id", hostUserID)],
            client: signedIn.credentials)
    }

    /// `GET /oauth/account-links?host_user_id=…`.
    func findLink(hostUserID: String, client: ClientCredentials) async throws -> TestReply {
        try await request(
            "GET", "/oauth/account-links?host_user_id=\(Self.formEncode(hostUserID))", client: client)
    }

    /// `DELETE /oauth/account-links/{link_id}`.
    func unlink(_ linkID: String, client: ClientCredentials) async throws -> TestReply {
        try await request("DELETE", "/oauth/account-links/\(linkID)", client: client)
    }

    /// The delegation exchange of `signedIn`'s token for `miniProgram`.
    func delegate(
        _ signedIn: LinkedHost, to audience: String, subjectToken: String? = nil, scope: String? = nil,
        resource: String? = nil
    ) async throws -> TestReply {
        try await exchange(
            as: signedIn.host, subjectToken: subjectToken ?? signedIn.accessToken,
            subjectTokenType: ExchangeURI.accessToken, audience: audience, resource: resource, scope: scope)
    }
}
