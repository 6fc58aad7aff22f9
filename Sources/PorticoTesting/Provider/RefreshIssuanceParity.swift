import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import Testing

/// A refresh with a narrowed `scope` takes the two-step rotation (the transaction), the plain
/// one the one-step rotation (``RefreshTokenPolicy/rotateInOneStep(_:clientID:in:now:)``,
/// one statement on PostgreSQL); both must issue from the family alike: the ID token's `amr`,
/// `sid`, `aud`, `sub` and `auth_time`, and the access token's `aud` (the resource the code was
/// bound to). Run over real HTTP on each backend's harness.
public enum RefreshIssuanceParity {
    static let resource = "https://orders.example/api"

    /// Signs a person in through the pages, refreshes once plainly and once narrowed, and
    /// compares what the two refreshes issued.
    public static func check(_ harness: ProviderHarness) async throws {
        _ = try harness.addUser()
        // Told of sign-outs, so its ID tokens carry `sid`; allowed a resource server.
        var client = Client(
            name: "Shop", type: .confidential, secret: "secret", redirectURIs: ["https://shop.example/cb"],
            allowedScopes: ["openid", "profile", "email"], allowedGrantTypes: ["authorization_code", "refresh_token"])
        client.backchannelLogoutURI = "https://shop.example/backchannel"
        client.resources = [resource]
        try harness.store.insert(client)
        let credentials = ClientCredentials.basic(id: client.id, secret: "secret")

        let browser = harness.browser()
        let pkce = PKCEPair()
        let start = try await browser.get(
            TestBrowser.authorizePath(
                client: client, pkce: pkce, scope: "openid profile email", extra: [("resource", resource)]))
        var done = try await browser.signIn(at: try #require(start.location))
        let location = try #require(done.location, "\(done.status) \(done.text)")
        if location.hasPrefix("/consent") { done = try await browser.decide(at: location, "allow") }
        let code = try #require(done.redirectParameters["code"], "\(done.status) \(done.location ?? "")")
        let redeemed = try await harness.token(
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", client.redirectURIs[0]),
                ("code_verifier", pkce.verifier),
            ], client: credentials)
        #expect(redeemed.status == 200, "\(redeemed.text)")
        let refreshToken = try #require(redeemed.string("refresh_token"))
        // An `amr` other than the default, so that a path that fell back to it would show.
        let familyID = String(try #require(RefreshToken.familyID(of: refreshToken)))
        try harness.store.transaction {
            try $0.recordAuthenticationMethods(["pwd", "otp"], forRefreshFamily: familyID)
        }

        let oneStep = try await harness.refresh(refreshToken, client: credentials)
        #expect(oneStep.status == 200, "\(oneStep.text)")
        let narrowed = try await harness.refresh(
            try #require(oneStep.string("refresh_token")), client: credentials, scope: "openid profile")
        #expect(narrowed.status == 200, "\(narrowed.text)")
        #expect(narrowed.string("scope") == "openid profile")

        let verifier = try await harness.jwksVerifier()
        func claims(_ reply: TestReply, _ name: String, _ algorithm: SignatureAlgorithm) throws -> JWTClaims {
            try verifier.verify(try #require(reply.string(name)), algorithms: [algorithm]).claims()
        }
        let oneStepID = try claims(oneStep, "id_token", .rs256)
        let narrowedID = try claims(narrowed, "id_token", .rs256)
        #expect(oneStepID["amr"] == .array(["pwd", "otp"]))
        #expect(narrowedID["amr"] == oneStepID["amr"])
        #expect(oneStepID["sid"]?.stringValue?.isEmpty == false)
        #expect(narrowedID["sid"] == oneStepID["sid"])
        #expect(oneStepID.audience == [client.id])
        #expect(narrowedID.audience == oneStepID.audience)
        #expect(narrowedID.subject == oneStepID.subject)
        #expect(narrowedID["auth_time"] == oneStepID["auth_time"])

        let oneStepAccess = try claims(oneStep, "access_token", .es256)
        let narrowedAccess = try claims(narrowed, "access_token", .es256)
        #expect(oneStepAccess.audience == [resource])
        #expect(narrowedAccess.audience == oneStepAccess.audience)
        #expect(narrowedAccess["scope"] == "openid profile")
    }
}
