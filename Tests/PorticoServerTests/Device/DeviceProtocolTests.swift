import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Device login over real HTTP, device side: the device authorization endpoint in both
/// dialects, and every answer of the token endpoint's device grant (RFC 8628 §3.5).
@Suite(.serialized) struct DeviceProtocolTests {
    private static let userCodePattern = #"^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$"#

    @Test func theStandardAnswerHasEveryMemberAndStoresOnlyAHash() async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addDeviceClient()
            let started = try await harness.startDeviceLogin(client)
            let reply = started.reply
            #expect(reply.header("Cache-Control") == "no-store")
            #expect(started.deviceCode.count == 43)
            #expect(started.userCode.range(of: Self.userCodePattern, options: .regularExpression) != nil)
            #expect(reply.string("verification_uri") == harness.base + "/device")
            #expect(reply.string("verification_uri_complete") == harness.base + "/device?user_code=\(started.userCode)")
            #expect(reply.json["expires_in"]?.integerValue == 600)
            #expect(reply.json["interval"]?.integerValue == 5)

            let stored = try #require(try harness.store.deviceAuthorization(deviceCode: started.deviceCode))
            #expect(stored.hashedDeviceCode != started.deviceCode)
            #expect(stored.hashedDeviceCode == Base64URL.encode(Digest.sha256.hash(started.deviceCode)))
            #expect(stored.userCode == started.userCode.replacingOccurrences(of: "-", with: ""))
            #expect(stored.scopes == ["openid", "profile"])
            #expect(stored.clientID == client.id)
        }
    }

    @Test func theCodePairAnswerHasLoginWithAmazonsShape() async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addDeviceClient()
            let started = try await harness.startAmazonDeviceLogin(client)
            #expect(
                Set(started.reply.json.keys) == [
                    "device_code", "user_code", "verification_uri", "expires_in", "interval",
                ])
            #expect(started.reply.string("verification_uri") == harness.base + "/device")
            #expect(started.userCode.range(of: Self.userCodePattern, options: .regularExpression) != nil)

            let wrongType = try await harness.post(
                DeviceAuthorizationEndpoint.amazonPath,
                [("response_type", "code"), ("client_id", client.id), ("scope", "profile")])
            #expect(wrongType.status == 400)
            #expect(wrongType.string("error") == "unsupported_response_type")
            let noType = try await harness.post(
                DeviceAuthorizationEndpoint.amazonPath, [("client_id", client.id), ("scope", "profile")])
            #expect(noType.string("error") == "invalid_request")
        }
    }

    @Test func startingIsRefusedForClientsAndScopesThatMayNot() async throws {
        try await ProviderHarness.with { harness in
            let tv = try harness.addDeviceClient(scopes: ["profile"])
            let webApp = try harness.addDeviceClient(name: "Web only", grants: ["authorization_code"])
            let confidential = try harness.addDeviceClient(name: "Console", secret: "console secret")
            let path = DeviceAuthorizationEndpoint.path

            let notRegistered = try await harness.post(path, [("client_id", webApp.id), ("scope", "profile")])
            #expect(notRegistered.status == 400)
            #expect(notRegistered.string("error") == "unauthorized_client")
            let unknownScope = try await harness.post(path, [("client_id", tv.id), ("scope", "profile nonsense")])
            #expect(unknownScope.string("error") == "invalid_scope")
            let notAllowed = try await harness.post(path, [("client_id", tv.id), ("scope", "postal_code")])
            #expect(notAllowed.string("error") == "invalid_scope")
            let noScope = try await harness.post(path, [("client_id", tv.id)])
            #expect(noScope.string("error") == "invalid_scope")
            let unknownClient = try await harness.post(path, [("client_id", "nobody"), ("scope", "profile")])
            #expect(unknownClient.status == 401)
            #expect(unknownClient.string("error") == "invalid_client")
            let withoutSecret = try await harness.post(path, [("client_id", confidential.id), ("scope", "profile")])
            #expect(withoutSecret.status == 401)
            let withSecret = try await harness.post(
                path, [("scope", "profile")], client: .basic(id: confidential.id, secret: "console secret"))
            #expect(withSecret.status == 200, "\(withSecret.text)")
            let wrongSecret = try await harness.post(
                path, [("scope", "profile")], client: .basic(id: confidential.id, secret: "nope"))
            #expect(wrongSecret.status == 401)
        }
    }

    @Test func pollingAnswersPendingThenSlowDownThenTokensOnce() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addDeviceClient()
            let started = try await harness.startDeviceLogin(client, scope: "openid profile")

            let first = try await harness.poll(started, clientID: client.id)
            #expect(first.status == 400)
            #expect(first.string("error") == "authorization_pending")
            #expect(first.header("Cache-Control") == "no-store")
            // Polled again at once: too fast; the interval grows by 5 s (RFC 8628 §3.5).
            let fast = try await harness.poll(started, clientID: client.id)
            #expect(fast.string("error") == "slow_down")
            #expect(try harness.store.deviceAuthorization(deviceCode: started.deviceCode)?.interval == 10)
            harness.clock.advance(by: 11)
            let patient = try await harness.poll(started, clientID: client.id)
            #expect(patient.string("error") == "authorization_pending")

            try harness.approve(started, as: user)
            let tokens = try await harness.poll(started, clientID: client.id)
            #expect(tokens.status == 200, "\(tokens.text)")
            #expect(tokens.string("token_type") == "Bearer")
            #expect(tokens.string("scope") == "openid profile")
            let accessToken = try #require(tokens.string("access_token"))
            let refreshToken = try #require(tokens.string("refresh_token"))
            let idToken = try #require(tokens.string("id_token"))

            // The tokens are those of any other grant: they verify, userinfo answers, the ID
            // token names the app and the person, and the refresh token rotates.
            let verifier = try JWSVerifier(keySet: try JWKSet(json: try await harness.get("/oauth/jwks").text))
            let identity = try verifier.verify(idToken, algorithms: [.rs256]).claims()
            #expect(identity.subject == user.id)
            #expect(identity.audience == [client.id])
            let userinfo = try await harness.get("/oauth/userinfo", bearer: accessToken)
            #expect(userinfo.status == 200)
            #expect(userinfo.string("name") == "Ann Example")
            let refreshed = try await harness.post(
                "/oauth/token",
                [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", client.id)])
            #expect(refreshed.status == 200, "\(refreshed.text)")

            // Once only.
            let again = try await harness.poll(started, clientID: client.id)
            #expect(again.status == 400)
            #expect(again.string("error") == "invalid_grant")
        }
    }

    @Test func aClientWithoutRefreshGetsNoRefreshTokenAndNoIDTokenWithoutOpenID() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addDeviceClient(grants: [DeviceCodeGrant.grantType])
            let started = try await harness.startDeviceLogin(client, scope: "profile")
            try harness.approve(started, as: user)
            let tokens = try await harness.poll(started, clientID: client.id)
            #expect(tokens.status == 200)
            #expect(tokens.string("access_token") != nil)
            #expect(tokens.string("refresh_token") == nil)
            #expect(tokens.string("id_token") == nil)
        }
    }

    @Test func aDenialIsAccessDenied() async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addDeviceClient()
            let started = try await harness.startDeviceLogin(client)
            let denied = try harness.store.transaction {
                try $0.denyDeviceAuthorization(userCode: started.userCode, now: harness.clock.now)
            }
            #expect(denied)
            let reply = try await harness.poll(started, clientID: client.id)
            #expect(reply.status == 400)
            #expect(reply.string("error") == "access_denied")
        }
    }

    @Test func anExpiredCodeIsExpiredTokenEvenWhenApproved() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addDeviceClient()
            let pending = try await harness.startDeviceLogin(client)
            let approved = try await harness.startDeviceLogin(client)
            try harness.approve(approved, as: user)
            harness.clock.advance(by: 601)
            let late = try await harness.poll(pending, clientID: client.id)
            #expect(late.string("error") == "expired_token")
            let lateApproved = try await harness.poll(approved, clientID: client.id)
            #expect(lateApproved.string("error") == "expired_token")
        }
    }

    @Test func unknownCodesAndOtherClientsCodesAreInvalidGrant() async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addDeviceClient()
            let other = try harness.addDeviceClient(name: "Other TV")
            let started = try await harness.startDeviceLogin(client)
            let unknown = try await harness.post(
                "/oauth/token",
                [
                    ("grant_type", DeviceCodeGrant.grantType), ("client_id", client.id),
                    ("device_code", SecureRandom.token()),
                ])
            #expect(unknown.string("error") == "invalid_grant")
            let stolen = try await harness.poll(started, clientID: other.id)
            #expect(stolen.string("error") == "invalid_grant")
            let missing = try await harness.post(
                "/oauth/token", [("grant_type", DeviceCodeGrant.grantType), ("client_id", client.id)])
            #expect(missing.string("error") == "invalid_request")
            // A client not registered for the grant may not poll at all.
            let web = try harness.addDeviceClient(name: "Web", grants: ["authorization_code"])
            let unauthorized = try await harness.poll(started, clientID: web.id)
            #expect(unauthorized.string("error") == "unauthorized_client")
        }
    }

    @Test func theLoginWithAmazonDialectPollsWithBothCodesAndNoClientID() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addDeviceClient()
            let started = try await harness.startAmazonDeviceLogin(client)
            let other = try await harness.startAmazonDeviceLogin(client)

            let pending = try await harness.pollAmazon(started)
            #expect(pending.string("error") == "authorization_pending")
            // Codes that do not belong together, a missing user code, a made-up device code.
            let mismatch = try await harness.pollAmazon(started, userCode: other.userCode)
            #expect(mismatch.status == 400)
            #expect(mismatch.string("error") == "invalid_grant")
            let noUserCode = try await harness.post(
                "/oauth/token", [("grant_type", "device_code"), ("device_code", started.deviceCode)])
            #expect(noUserCode.string("error") == "invalid_request")
            let unknown = try await harness.post(
                "/oauth/token",
                [("grant_type", "device_code"), ("device_code", "made-up"), ("user_code", started.userCode)])
            #expect(unknown.string("error") == "invalid_grant")

            harness.clock.advance(by: 30)
            try harness.approve(started, as: user)
            // The user code as typed by a person (lower case, no dash) still matches.
            let typed = started.userCode.lowercased().replacingOccurrences(of: "-", with: "")
            let tokens = try await harness.pollAmazon(started, userCode: typed, path: "/oauth/token")
            #expect(tokens.status == 200, "\(tokens.text)")
            #expect(tokens.string("access_token") != nil)
            #expect(tokens.string("refresh_token") != nil)
            let again = try await harness.pollAmazon(started)
            #expect(again.string("error") == "invalid_grant")
        }
    }

    @Test func aConfidentialClientMustAuthenticateInTheAmazonDialectToo() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let console = try harness.addDeviceClient(name: "Console", secret: "console secret")
            let reply = try await harness.post(
                DeviceAuthorizationEndpoint.amazonPath, [("response_type", "device_code"), ("scope", "profile")],
                client: .basic(id: console.id, secret: "console secret"))
            #expect(reply.status == 200)
            let started = ProviderHarness.DeviceLogin(
                deviceCode: try #require(reply.string("device_code")),
                userCode: try #require(reply.string("user_code")),
                reply: reply)
            let anonymous = try await harness.pollAmazon(started)
            #expect(anonymous.status == 401)
            #expect(anonymous.string("error") == "invalid_client")
            try harness.approve(started, as: user)
            let tokens = try await harness.post(
                "/auth/o2/token",
                [("grant_type", "device_code"), ("device_code", started.deviceCode), ("user_code", started.userCode)],
                client: .basic(id: console.id, secret: "console secret"))
            #expect(tokens.status == 200, "\(tokens.text)")
        }
    }

    @Test func discoveryAdvertisesTheEndpointAndTheGrant() async throws {
        try await ProviderHarness.with { harness in
            let document = try await harness.get("/.well-known/openid-configuration")
            #expect(document.string("device_authorization_endpoint") == harness.base + "/oauth/device_authorization")
            let grants = document.json["grant_types_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(grants.contains("urn:ietf:params:oauth:grant-type:device_code"))
            #expect(!grants.contains("device_code"))
        }
    }

    @Test func userCodesUseTheUnambiguousAlphabetAndFormatAsTwoGroups() {
        for _ in 0..<200 {
            let code = UserCode.generate()
            #expect(code.count == 8)
            #expect(code.allSatisfy { UserCode.alphabet.contains($0) })
        }
        #expect(UserCode.formatted("wdjb mjht") == "WDJB-MJHT")
        #expect(DeviceAuthorization.normalizedUserCode("wdjb-mjht") == "WDJBMJHT")
    }
}
