import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Short delivery intervals, so tests watch a retry in well under a second; `change` adjusts
/// more.
func backChannelConfiguration(_ change: @escaping (inout ProviderConfiguration) -> Void = { _ in })
    -> ProviderConfiguration
{
    .testing { configuration in
        configuration.backchannelLogout = BackChannelLogoutSettings(
            pollInterval: .milliseconds(20), requestTimeout: .seconds(3), firstRetryDelay: .milliseconds(100),
            maximumRetryDelay: .milliseconds(400))
        change(&configuration)
    }
}

extension ProviderHarness {
    /// A confidential client (secret `secret`) told of sign-outs at `receiver`'s URI.
    func addBackChannelClient(
        name: String, receiver: LogoutReceiver, idTokenAlgorithm: String = "RS256", pairwise: Bool = false
    ) throws -> Client {
        var client = Client(
            name: name, type: .confidential, secret: "secret",
            redirectURIs: ["https://\(name.lowercased()).example/cb"],
            allowedScopes: ProviderHarness.allScopes, idTokenSigningAlgorithm: idTokenAlgorithm,
            postLogoutRedirectURIs: ["https://\(name.lowercased()).example/bye"])
        client.backchannelLogoutURI = receiver.uri
        if pairwise {
            client.subjectType = .pairwise
            client.sectorIdentifier = "\(name.lowercased()).example"
        }
        try store.insert(client)
        return client
    }

    /// Authorizes `client` in `browser` (signing in if needed, Allow), redeems the code and
    /// returns the token response.
    func authorizeAndRedeem(_ browser: TestBrowser, client: Client, scope: String = "openid profile") async throws
        -> [String: JSONValue]
    {
        let pkce = PKCEPair()
        let start = try await browser.get(TestBrowser.authorizePath(client: client, pkce: pkce, scope: scope))
        var done = start
        var location = try #require(start.location)
        if location.hasPrefix("/login") {
            done = try await browser.signIn(at: location)
            location = try #require(done.location)
        }
        // A person who allowed the app before goes straight back to it.
        if location.hasPrefix("/consent") { done = try await browser.decide(at: location, "allow") }
        let code = try #require(done.redirectParameters["code"], "no code: \(done.status) \(done.location ?? "")")
        return try await sessionRedeem(browser, client: client, code: code, pkce: pkce)
    }

    /// The claims of a logout token, after checking what OpenID Connect Back-Channel Logout 1.0
    /// §2.4 requires of it against this provider's JWKS: signed with the client's ID-token
    /// algorithm, `typ: logout+jwt`, `iss`, `aud` the client alone, `iat`, `exp` after it, a
    /// `jti`, the back-channel logout event, a `sub`, and no `nonce`.
    func verifiedLogoutToken(_ token: String, for client: Client) async throws -> JWTClaims {
        let verifier = try await jwksVerifier()
        let algorithm = try #require(SignatureAlgorithm(rawValue: client.idTokenSigningAlgorithm))
        let verified = try verifier.verify(token, algorithms: [algorithm], type: "logout+jwt")
        #expect(verified.header.type == "logout+jwt")
        let claims = try verified.claims()
        #expect(claims.issuer == issuer)
        #expect(claims.audience == [client.id])
        let issuedAt = try #require(claims.issuedAt)
        let expiresAt = try #require(claims.expiresAt)
        #expect(expiresAt > issuedAt)
        #expect(expiresAt > clock.now)
        #expect(claims.jwtID?.isEmpty == false)
        #expect(claims.subject?.isEmpty == false)
        #expect(
            claims["events"]?.objectValue?["http://schemas.openid.net/event/backchannel-logout"]?.objectValue
                == [:])
        #expect(claims["nonce"] == nil)
        return claims
    }

    /// The claims of an ID token from this provider (signature checked, `typ` not).
    func idTokenClaims(_ token: String) async throws -> JWTClaims {
        try await jwksVerifier().verify(token, algorithms: Set(SignatureAlgorithm.allCases)).claims()
    }

    /// Enqueues a logout of `userID` for `client` as the provider's events do, and returns the
    /// message's id, to look at its outcome later.
    func enqueueLogout(for client: Client, userID: String, sessionID: String? = nil) throws -> String {
        let message = OutboxMessage(
            topic: BackChannelLogout.topic,
            payload: BackChannelLogout.Message(clientID: client.id, userID: userID, sessionID: sessionID).payload,
            createdAt: clock.now)
        try store.transaction { try $0.enqueue(message) }
        return message.id
    }

    /// Waits until no back-channel logout message is pending (delivered or given up).
    func waitForEmptyOutbox() async throws {
        try await waitUntil("an empty back-channel logout outbox") {
            try self.store.read { try $0.pendingOutboxMessageCount() } == 0
        }
    }
}

/// The audience of each token, for asserting who was told.
func audiences(_ tokens: [String]) -> [String] {
    tokens.compactMap { token in
        let parts = token.split(separator: ".")
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]),
            let claims = try? JWTClaims(json: payload)
        else { return nil }
        return claims.audience.first
    }
}
