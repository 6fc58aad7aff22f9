import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// OpenID Connect Native SSO for Mobile Apps 1.0 over real HTTP: the device secret, the ID
/// token's `sid` and `ds_hash`, the exchange with every check of §4.3, and the end of sessions.
@Suite("Native SSO") struct NativeSSOTests {
    @Test("a sign-in with device_sso gets a device secret; another app of the group exchanges it for its own tokens")
    func exchangeIssuesTokensInTheSameSession() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let first = try harness.addExchangeClient(name: "Mail")
            let second = try harness.addExchangeClient(name: "Calendar", isPublic: true)
            let signIn = try await harness.ssoSignIn(user, to: first)
            #expect(signIn.deviceSecret.count == 43)  // 256 bits, base64url
            let idClaims = try await harness.claims(of: signIn.idToken)
            let sessionID = try #require(idClaims["sid"]?.stringValue)
            #expect(
                idClaims["ds_hash"]?.stringValue == Base64URL.encode(Digest.sha256.hash(signIn.deviceSecret).prefix(16))
            )
            #expect(try await harness.claims(of: signIn.accessToken)["sid"]?.stringValue == sessionID)
            // Only its hash is stored.
            let database = try Data(contentsOf: harness.directory.appendingPathComponent("portico.db"))
            #expect(database.range(of: Data(signIn.deviceSecret.utf8)) == nil)

            let reply = try await harness.nativeSSO(signIn, as: second)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.string("issued_token_type") == ExchangeURI.accessToken)
            #expect(reply.string("token_type") == "Bearer")
            #expect(reply.json["expires_in"]?.integerValue == 3600)
            #expect(reply.string("scope") == "openid profile device_sso")
            #expect(reply.json["device_secret"] == nil)
            let access = try await harness.claims(of: try #require(reply.string("access_token")))
            #expect(access.subject == user.id)
            #expect(access["client_id"]?.stringValue == second.id)
            #expect(access["sid"]?.stringValue == sessionID)
            let idToken = try await harness.claims(of: try #require(reply.string("id_token")))
            #expect(idToken.audience == [second.id])
            #expect(idToken["sid"]?.stringValue == sessionID)
            #expect(idToken["ds_hash"] == idClaims["ds_hash"])
            #expect(idToken.subject == user.id)
            // The second app's refresh token works, and refreshed ID tokens stay in the session.
            let refreshed = try await harness.refresh(
                try #require(reply.string("refresh_token")), client: harness.exchangeCredentials(second))
            #expect(refreshed.status == 200)
            let refreshedID = try await harness.claims(of: try #require(refreshed.string("id_token")))
            #expect(refreshedID["sid"]?.stringValue == sessionID)
            #expect(refreshedID["ds_hash"] == idClaims["ds_hash"])
            // The person sees the second app in Your Account (its consent is recorded).
            #expect(try harness.store.consent(userID: user.id, clientID: second.id) != nil)
        }
    }

    @Test("discovery says native_sso_supported and lists the grant")
    func discovery() async throws {
        try await ProviderHarness.with { harness in
            let document = try await harness.request("GET", "/.well-known/openid-configuration").json
            #expect(document["native_sso_supported"] == .bool(true))
            #expect(document["grant_types_supported"]?.arrayValue?.contains(.string(ExchangeURI.grant)) == true)
            #expect(document["scopes_supported"]?.arrayValue?.contains("device_sso") == true)
            #expect(document["subject_types_supported"] == ["public", "pairwise"])
        }
    }

    @Test("Okta's older device-secret type is accepted")
    func oktaTokenType() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let first = try harness.addExchangeClient()
            let second = try harness.addExchangeClient(name: "Second")
            let signIn = try await harness.ssoSignIn(user, to: first)
            let reply = try await harness.nativeSSO(signIn, as: second, actorTokenType: ExchangeURI.oktaDeviceSecret)
            #expect(reply.status == 200, "\(reply.text)")
        }
    }

    @Test("an expired ID token is still exchanged while the session lives")
    func expiredIDToken() async throws {
        let clock = TestClock()
        try await ProviderHarness.with(clock: clock) { harness in
            let user = try harness.addUser()
            let first = try harness.addExchangeClient()
            let second = try harness.addExchangeClient(name: "Second")
            let signIn = try await harness.ssoSignIn(user, to: first, now: clock.now)
            clock.advance(by: 2 * 3600)
            let reply = try await harness.nativeSSO(signIn, as: second)
            #expect(reply.status == 200, "\(reply.text)")
        }
    }

    @Test("RFC 8693 parameters: every missing or mismatched one is invalid_request")
    func parameterErrors() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let first = try harness.addExchangeClient()
            let second = try harness.addExchangeClient(name: "Second")
            let signIn = try await harness.ssoSignIn(user, to: first)
            let cases: [(String, TestReply)] = [
                (
                    "no subject_token",
                    try await harness.exchange(
                        as: second, subjectToken: nil, subjectTokenType: ExchangeURI.idToken,
                        actorToken: signIn.deviceSecret, actorTokenType: ExchangeURI.deviceSecret,
                        audience: harness.issuer)
                ),
                (
                    "no subject_token_type",
                    try await harness.exchange(
                        as: second, subjectToken: signIn.idToken, subjectTokenType: nil,
                        actorToken: signIn.deviceSecret, actorTokenType: ExchangeURI.deviceSecret,
                        audience: harness.issuer)
                ),
                (
                    "actor_token without its type",
                    try await harness.exchange(
                        as: second, subjectToken: signIn.idToken, subjectTokenType: ExchangeURI.idToken,
                        actorToken: signIn.deviceSecret, audience: harness.issuer)
                ),
                (
                    "actor_token_type without the token",
                    try await harness.exchange(
                        as: second, subjectToken: signIn.idToken, subjectTokenType: ExchangeURI.idToken,
                        actorTokenType: ExchangeURI.deviceSecret, audience: harness.issuer)
                ),
                (
                    "an unknown subject_token_type",
                    try await harness.exchange(
                        as: second, subjectToken: signIn.idToken, subjectTokenType: "urn:example:token-type:saml",
                        actorToken: signIn.deviceSecret, actorTokenType: ExchangeURI.deviceSecret,
                        audience: harness.issuer)
                ),
                (
                    "a requested_token_type not issued here",
                    try await harness.exchange(
                        as: second, subjectToken: signIn.idToken, subjectTokenType: ExchangeURI.idToken,
                        actorToken: signIn.deviceSecret, actorTokenType: ExchangeURI.deviceSecret,
                        audience: harness.issuer, requestedTokenType: ExchangeURI.refreshToken)
                ),
                (
                    "an ID token without a device secret",
                    try await harness.exchange(
                        as: second, subjectToken: signIn.idToken, subjectTokenType: ExchangeURI.idToken,
                        audience: harness.issuer)
                ),
                (
                    "an actor that is no device secret",
                    try await harness.exchange(
                        as: second, subjectToken: signIn.idToken, subjectTokenType: ExchangeURI.idToken,
                        actorToken: signIn.accessToken, actorTokenType: ExchangeURI.accessToken,
                        audience: harness.issuer)
                ),
                (
                    "a subject that is no JWT",
                    try await harness.exchange(
                        as: second, subjectToken: "not-a-token", subjectTokenType: ExchangeURI.idToken,
                        actorToken: signIn.deviceSecret, actorTokenType: ExchangeURI.deviceSecret,
                        audience: harness.issuer)
                ),
                (
                    "no audience",
                    try await harness.exchange(
                        as: second, subjectToken: signIn.idToken, subjectTokenType: ExchangeURI.idToken,
                        actorToken: signIn.deviceSecret, actorTokenType: ExchangeURI.deviceSecret)
                ),
            ]
            for (name, reply) in cases {
                #expect(reply.status == 400, "\(name)")
                #expect(reply.error == "invalid_request", "\(name): \(reply.text)")
            }
            let other = try await harness.exchange(
                as: second, subjectToken: signIn.idToken, subjectTokenType: ExchangeURI.idToken,
                actorToken: signIn.deviceSecret, actorTokenType: ExchangeURI.deviceSecret,
                audience: "https://elsewhere.example")
            #expect(other.error == "invalid_target", "\(other.text)")
        }
    }

    @Test("the checks of §4.3: device secret, signature, ds_hash, sid, session, group, account")
    func processingRules() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let first = try harness.addExchangeClient()
            let second = try harness.addExchangeClient(name: "Second")
            let signIn = try await harness.ssoSignIn(user, to: first)
            let otherSignIn = try await harness.ssoSignIn(user, to: first)

            // An unknown device secret (with a ds_hash that matches it).
            let unknownSecret = SecureRandom.token()
            let forged = try harness.signIDToken(
                like: signIn.idToken,
                changing: [
                    "ds_hash": .string(Base64URL.encode(Digest.sha256.hash(unknownSecret).prefix(16)))
                ])
            let unknown = try await harness.exchange(
                as: second, subjectToken: forged, subjectTokenType: ExchangeURI.idToken, actorToken: unknownSecret,
                actorTokenType: ExchangeURI.deviceSecret, audience: harness.issuer)
            #expect(unknown.error == "invalid_grant", "\(unknown.text)")

            // A signature that does not verify.
            var parts = signIn.idToken.split(separator: ".").map(String.init)
            var signature = try #require(Base64URL.decode(Substring(parts[2])))
            signature[10] ^= 0x01
            parts[2] = Base64URL.encode(signature)
            let badSignature = try await harness.exchange(
                as: second, subjectToken: parts.joined(separator: "."), subjectTokenType: ExchangeURI.idToken,
                actorToken: signIn.deviceSecret, actorTokenType: ExchangeURI.deviceSecret, audience: harness.issuer)
            #expect(badSignature.error == "invalid_grant", "\(badSignature.text)")

            // ds_hash of another device secret.
            let mixed = try await harness.exchange(
                as: second, subjectToken: signIn.idToken, subjectTokenType: ExchangeURI.idToken,
                actorToken: otherSignIn.deviceSecret, actorTokenType: ExchangeURI.deviceSecret,
                audience: harness.issuer)
            #expect(mixed.error == "invalid_grant", "\(mixed.text)")

            // The right sid but a ds_hash of another secret.
            let wrongHash = try harness.signIDToken(
                like: signIn.idToken,
                changing: [
                    "ds_hash": .string(Base64URL.encode(Digest.sha256.hash(unknownSecret).prefix(16)))
                ])
            let hashMismatch = try await harness.exchange(
                as: second, subjectToken: wrongHash, subjectTokenType: ExchangeURI.idToken,
                actorToken: signIn.deviceSecret, actorTokenType: ExchangeURI.deviceSecret, audience: harness.issuer)
            #expect(hashMismatch.error == "invalid_grant", "\(hashMismatch.text)")

            // The right ds_hash but the sid of another session.
            let otherSID = try await harness.claims(of: otherSignIn.idToken)["sid"]
            let wrongSession = try harness.signIDToken(like: signIn.idToken, changing: ["sid": try #require(otherSID)])
            let sidMismatch = try await harness.exchange(
                as: second, subjectToken: wrongSession, subjectTokenType: ExchangeURI.idToken,
                actorToken: signIn.deviceSecret, actorTokenType: ExchangeURI.deviceSecret, audience: harness.issuer)
            #expect(sidMismatch.error == "invalid_grant", "\(sidMismatch.text)")

            // Another issuer.
            let foreign = try harness.signIDToken(like: signIn.idToken, changing: ["iss": "https://evil.example"])
            let foreignIssuer = try await harness.exchange(
                as: second, subjectToken: foreign, subjectTokenType: ExchangeURI.idToken,
                actorToken: signIn.deviceSecret, actorTokenType: ExchangeURI.deviceSecret, audience: harness.issuer)
            #expect(foreignIssuer.error == "invalid_grant", "\(foreignIssuer.text)")

            // An app of another group, an app of none, an app not registered for the grant.
            let stranger = try harness.addExchangeClient(name: "Stranger", group: "other-vendor")
            #expect(try await harness.nativeSSO(signIn, as: stranger).error == "invalid_grant")
            let loner = try harness.addExchangeClient(name: "Loner", group: nil, scopes: ["openid", "profile"])
            #expect(try await harness.nativeSSO(signIn, as: loner).error == "unauthorized_client")
            let unregistered = try harness.addExchangeClient(
                name: "No grant", grants: ["authorization_code", "refresh_token"])
            #expect(try await harness.nativeSSO(signIn, as: unregistered).error == "unauthorized_client")

            // A session whose refresh families are all gone has ended.
            let family = try #require(
                try harness.store.read { try RefreshTokenPolicy.token(otherSignIn.refreshToken, in: $0) })
            try harness.store.transaction { _ = try $0.revokeRefreshFamily(id: family.familyID, now: Date()) }
            #expect(try await harness.nativeSSO(otherSignIn, as: second).error == "invalid_grant")

            // The unchanged request still succeeds: each failure above was its own check.
            #expect(try await harness.nativeSSO(signIn, as: second).status == 200)
        }
    }

    @Test("consent given to any app of the group covers the others; anything beyond is interaction_required")
    func consentIsSharedInTheGroup() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let first = try harness.addExchangeClient()
            let second = try harness.addExchangeClient(name: "Second")
            let signIn = try await harness.ssoSignIn(user, to: first)
            let beyond = try await harness.nativeSSO(signIn, as: second, scope: "openid profile email")
            #expect(beyond.error == "interaction_required", "\(beyond.text)")
            #expect(try harness.store.consent(userID: user.id, clientID: second.id) == nil)
            // A third app of the group was allowed email: now it is covered for the second too.
            let third = try harness.addExchangeClient(name: "Third")
            _ = try harness.store.transaction {
                try ConsentPolicy().grant(
                    userID: user.id, clientID: third.id, scopes: ["openid", "email"], in: $0, now: Date())
            }
            let covered = try await harness.nativeSSO(signIn, as: second, scope: "openid profile email")
            #expect(covered.status == 200, "\(covered.text)")
            #expect(covered.string("scope") == "openid profile email")
            // Consent in another group covers nothing.
            let outsider = try harness.addExchangeClient(name: "Outsider", group: "other")
            _ = try harness.store.transaction {
                try ConsentPolicy().grant(
                    userID: user.id, clientID: outsider.id, scopes: ["postal_code"], in: $0, now: Date())
            }
            let wider = try harness.addExchangeClient(
                name: "Wider", scopes: ["openid", "profile", "postal_code", "device_sso"])
            #expect(
                try await harness.nativeSSO(signIn, as: wider, scope: "openid postal_code").error
                    == "interaction_required")
            // A scope the app may not ask for at all.
            #expect(
                try await harness.nativeSSO(signIn, as: second, scope: "openid postal_code").error == "invalid_scope")
        }
    }

    @Test("revoking the device secret ends every app's tokens of the session; introspection follows")
    func revocationCascades() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let first = try harness.addExchangeClient()
            let second = try harness.addExchangeClient(name: "Second", introspection: true)
            let signIn = try await harness.ssoSignIn(user, to: first)
            let exchanged = try await harness.nativeSSO(signIn, as: second)
            let secondAccess = try #require(exchanged.string("access_token"))
            let secondRefresh = try #require(exchanged.string("refresh_token"))

            let active = try await harness.introspect(signIn.deviceSecret, client: harness.exchangeCredentials(second))
            #expect(active.json["active"] == .bool(true))
            #expect(active.string("token_type") == "device_secret")
            let outsider = try harness.addExchangeClient(name: "Outsider", group: "other", introspection: true)
            let hidden = try await harness.introspect(
                signIn.deviceSecret, client: harness.exchangeCredentials(outsider))
            #expect(hidden.json["active"] == .bool(false))

            // An app outside the group cannot revoke it.
            _ = try await harness.request(
                "POST", "/oauth/revoke", form: [("token", signIn.deviceSecret), ("token_type_hint", "device_secret")],
                client: harness.exchangeCredentials(outsider))
            #expect(try await harness.resource("/oauth/userinfo", token: secondAccess).status == 200)

            let revoked = try await harness.request(
                "POST", "/oauth/revoke", form: [("token", signIn.deviceSecret), ("token_type_hint", "device_secret")],
                client: harness.exchangeCredentials(first))
            #expect(revoked.status == 200)
            #expect(try await harness.nativeSSO(signIn, as: second).error == "invalid_grant")
            #expect(
                try await harness.refresh(signIn.refreshToken, client: harness.exchangeCredentials(first)).error
                    == "invalid_grant")
            #expect(
                try await harness.refresh(secondRefresh, client: harness.exchangeCredentials(second)).error
                    == "invalid_grant")
            #expect(try await harness.resource("/oauth/userinfo", token: signIn.accessToken).status == 401)
            #expect(try await harness.resource("/oauth/userinfo", token: secondAccess).status == 401)
            let inactive = try await harness.introspect(
                signIn.deviceSecret, client: harness.exchangeCredentials(second))
            #expect(inactive.json["active"] == .bool(false))
        }
    }

    @Test("revoking without a hint finds the device secret too")
    func revocationWithoutHint() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let first = try harness.addExchangeClient()
            let second = try harness.addExchangeClient(name: "Second")
            let signIn = try await harness.ssoSignIn(user, to: first)
            _ = try await harness.request(
                "POST", "/oauth/revoke", form: [("token", signIn.deviceSecret)],
                client: harness.exchangeCredentials(first))
            #expect(try await harness.nativeSSO(signIn, as: second).error == "invalid_grant")
        }
    }

    @Test("disabling the person, or signing their browser out, ends the session for every app")
    func sessionEndsWithTheBrowserOrTheAccount() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let first = try harness.addExchangeClient()
            let second = try harness.addExchangeClient(name: "Second")
            // Signed in through a browser session that is then signed out from Your Account's list.
            let browser = BrowserSession(token: SecureRandom.token(), userID: user.id, expiresAt: Date() + 3600)
            try harness.store.insert(browser)
            let signIn = try await harness.ssoSignIn(user, to: first, sessionHashedID: browser.hashedID)
            let exchanged = try await harness.nativeSSO(signIn, as: second)
            try harness.store.transaction {
                try NativeSSO.endSessions(browserSessionHashedID: browser.hashedID, now: Date(), in: $0)
            }
            #expect(try await harness.nativeSSO(signIn, as: second).error == "invalid_grant")
            #expect(
                try await harness.resource("/oauth/userinfo", token: try #require(exchanged.string("access_token")))
                    .status == 401)

            let again = try await harness.ssoSignIn(user, to: first)
            _ = try UserAdministration.setDisabled(true, reference: user.id, in: harness.store)
            _ = try UserAdministration.setDisabled(false, reference: user.id, in: harness.store)
            // Enabled again, but the session ended with the disabling.
            #expect(try await harness.nativeSSO(again, as: second).error == "invalid_grant")
            #expect(
                try await harness.refresh(again.refreshToken, client: harness.exchangeCredentials(first)).error
                    == "invalid_grant")
        }
    }

    @Test("a client without a group cannot be granted device_sso; without openid there is no device secret")
    func deviceSecretNeedsAGroupAndOpenID() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let app = try harness.addExchangeClient(scopes: ["openid", "profile", "device_sso"])
            let withoutOpenID = try await harness.ssoSignIn(user, to: app, scopes: ["profile", "device_sso"])
            #expect(withoutOpenID.reply.json["device_secret"] == nil)
            let plain = try await harness.ssoSignIn(user, to: app, scopes: ["openid", "profile"])
            #expect(plain.reply.json["device_secret"] == nil)
            #expect(try await harness.claims(of: plain.idToken)["sid"] == nil)
        }
    }

    @Test("/oauth/authorize refuses device_sso to an app in no group, and without openid")
    func authorizeNeedsAGroup() async throws {
        try await ProviderHarness.with { harness in
            let loner = try harness.addExchangeClient(group: nil, scopes: ["openid", "profile", "device_sso"])
            let member = try harness.addExchangeClient(name: "Member")
            func authorize(_ client: Client, scope: String) throws -> TestReply {
                var components = URLComponents()
                components.queryItems = [
                    URLQueryItem(name: "response_type", value: "code"),
                    URLQueryItem(name: "client_id", value: client.id),
                    URLQueryItem(name: "redirect_uri", value: client.redirectURIs[0]),
                    URLQueryItem(name: "scope", value: scope), URLQueryItem(name: "state", value: "s"),
                    URLQueryItem(name: "code_challenge", value: PKCE.challenge(for: PKCE.makeVerifier())),
                    URLQueryItem(name: "code_challenge_method", value: "S256"),
                ]
                return try RawHTTPClient.send(
                    port: harness.port, method: "GET",
                    path: "/oauth/authorize?" + (components.percentEncodedQuery ?? ""),
                    headers: [:], body: nil)
            }
            #expect(
                try authorize(loner, scope: "openid device_sso").header("Location")?.contains("error=invalid_scope")
                    == true)
            #expect(
                try authorize(member, scope: "profile device_sso").header("Location")?.contains("error=invalid_scope")
                    == true)
            #expect(try authorize(member, scope: "openid device_sso").header("Location")?.contains("error=") == false)
        }
    }
}

extension ProviderHarness {
    /// `token`'s claims with `changes`, signed again with the provider's own RS256 key, so that
    /// only the changed claim can make the exchange fail.
    func signIDToken(like token: String, changing changes: [String: JSONValue]) throws -> String {
        let payload = try #require(Base64URL.decode(Substring(token.split(separator: ".")[1])))
        var claims = try JWTClaims(json: payload)
        for (name, value) in changes {
            if name == "iss" { claims.issuer = value.stringValue } else { claims[name] = value }
        }
        return try signWithProviderKey(claims)
    }
}
