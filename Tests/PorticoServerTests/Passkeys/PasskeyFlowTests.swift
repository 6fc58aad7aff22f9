import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Passkeys over real HTTP: added from Your Account, then signing in through a real
/// authorization (code, token, `amr`), and every tampered assertion refused with the same page.
@Suite struct PasskeyFlowTests {
    /// A browser signed in with the password, and its Your Account page's CSRF token.
    func signedIn(_ harness: ProviderHarness) async throws -> (TestBrowser, String) {
        let browser = harness.browser()
        let first = try await browser.get(AccountEndpoint.path)
        _ = try await browser.signIn(at: try #require(first.location))
        let account = try await browser.get(AccountEndpoint.path)
        #expect(account.text.contains(#"id="passkey-add""#))
        return (browser, try #require(account.hiddenField("csrf_token")))
    }

    /// Adds `device`'s credential through the page's endpoints; returns the options' JSON.
    @discardableResult
    func add(_ device: inout SoftwareAuthenticator, browser: TestBrowser, csrf: String) async throws -> [String:
        JSONValue]
    {
        let reply = try await browser.post(PasskeyEndpoint.registrationOptionsPath, [("csrf_token", csrf)])
        #expect(reply.status == 200, "\(reply.text)")
        let options = reply.json
        let challenge = try #require(options["challenge"]?.stringValue.flatMap(Base64URL.decode))
        device.userHandle = try #require(options["user"]?.objectValue?["id"]?.stringValue.flatMap(Base64URL.decode))
        let created = device.register(challenge: challenge)
        let credential: JSONValue = [
            "id": .string(Base64URL.encode(device.credentialID)),
            "clientDataJSON": .string(Base64URL.encode(created.clientDataJSON)),
            "attestationObject": .string(Base64URL.encode(created.attestationObject)),
        ]
        let added = try await browser.post(
            PasskeyEndpoint.registrationPath, [("csrf_token", csrf), ("passkey_credential", credential.jsonString)])
        #expect(added.status == 303, "\(added.text)")
        return options
    }

    /// The form fields of a passkey sign-in on `page` with `assertion`.
    func signInFields(
        _ page: TestReply, _ assertion: (clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8]),
        credentialID: [UInt8], userHandle: [UInt8]
    ) throws -> [(String, String)] {
        let credential: JSONValue = [
            "id": .string(Base64URL.encode(credentialID)),
            "clientDataJSON": .string(Base64URL.encode(assertion.clientDataJSON)),
            "authenticatorData": .string(Base64URL.encode(assertion.authenticatorData)),
            "signature": .string(Base64URL.encode(assertion.signature)),
            "userHandle": .string(Base64URL.encode(userHandle)),
        ]
        var fields = [("csrf_token", try #require(page.hiddenField("csrf_token")))]
        if let request = page.hiddenField("request") { fields.append(("request", request)) }
        fields.append(("passkey_credential", credential.jsonString))
        return fields
    }

    func challenge(_ browser: TestBrowser) async throws -> [UInt8] {
        let reply = try await browser.post(PasskeyEndpoint.signInOptionsPath, [])
        #expect(reply.status == 200)
        #expect(reply.json["allowCredentials"] == nil)
        #expect(reply.json["userVerification"]?.stringValue == "required")
        return try #require(reply.json["challenge"]?.stringValue.flatMap(Base64URL.decode))
    }

    @Test func addedPasskeySignsInThroughAnAuthorization() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient()
            let rp = try #require(PasskeyRelyingParty(issuer: harness.issuer))
            var device = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
            let (browser, csrf) = try await signedIn(harness)
            let options = try await add(&device, browser: browser, csrf: csrf)
            // Options: resident key and user verification required, the three algorithms, a
            // 64-byte user handle that is not the e-mail address.
            #expect(device.userHandle.count == 64)
            #expect(!String(decoding: device.userHandle, as: UTF8.self).contains(user.email))
            let selection = options["authenticatorSelection"]?.objectValue
            #expect(selection?["residentKey"]?.stringValue == "required")
            #expect(selection?["userVerification"]?.stringValue == "required")
            #expect(
                options["pubKeyCredParams"]?.arrayValue?.compactMap { $0.objectValue?["alg"]?.integerValue } == [
                    -7, -8, -257,
                ])
            let stored = try harness.store.read { try $0.passkeyCredentials(userID: user.id) }
            #expect(stored.map(\.credentialID) == [device.credentialID])
            let account = try await browser.get(AccountEndpoint.path)
            #expect(account.text.contains(Base64URL.encode(device.credentialID)))
            // The next registration excludes it.
            let next = try await browser.post(PasskeyEndpoint.registrationOptionsPath, [("csrf_token", csrf)])
            #expect(
                next.json["excludeCredentials"]?.arrayValue?.first?.objectValue?["id"]?.stringValue
                    == Base64URL.encode(device.credentialID))

            // A third-party app's authorization, signed in with the passkey.
            let other = harness.browser()
            let pkce = PKCEPair()
            let start = try await other.get(TestBrowser.authorizePath(client: client, pkce: pkce))
            let page = try await other.get(try #require(start.location))
            #expect(page.text.contains(#"autocomplete="username webauthn""#))
            #expect(page.text.contains(#"id="passkey-sign-in""#))
            let nonce = try await challenge(other)
            let assertion = device.assert(challenge: nonce)
            let fields = try signInFields(
                page, assertion, credentialID: device.credentialID, userHandle: device.userHandle)
            let reply = try await other.post(PasskeyEndpoint.signInPath, fields)
            var location = try #require(reply.location, "\(reply.status) \(reply.text)")
            #expect(location.hasPrefix("/consent"))
            location = try #require(try await other.decide(at: location, "allow").location)
            let code = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value)
            let tokens = try await harness.token(
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", client.redirectURIs[0]),
                    ("code_verifier", pkce.verifier),
                ], client: .of(client))
            #expect(tokens.status == 200)
            let claims = try await harness.jwksVerifier().verify(
                try #require(tokens.string("id_token")), algorithms: [.rs256]
            ).claims()
            #expect(claims["amr"] == .array(["hwk", "user", "mfa"]))
            let used = try #require(try harness.store.read { try $0.passkeyCredential(id: device.credentialID) })
            #expect(used.signCount == 2 && used.lastUsedAt != nil)

            // The same assertion again: its challenge is used up.
            let replay = try await other.post(PasskeyEndpoint.signInPath, fields)
            #expect(replay.status == 200 && replay.text.contains(#"id="login-error""#))
        }
    }

    @Test func syncedPasskeyGivesSoftwareKeyAMR() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let rp = try #require(PasskeyRelyingParty(issuer: harness.issuer))
            var device = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin, synced: true)
            let (browser, csrf) = try await signedIn(harness)
            try await add(&device, browser: browser, csrf: csrf)
            let other = harness.browser()
            let page = try await other.get(AuthorizationFlow.loginPath)
            let assertion = device.assert(challenge: try await challenge(other))
            let reply = try await other.post(
                PasskeyEndpoint.signInPath,
                try signInFields(page, assertion, credentialID: device.credentialID, userHandle: device.userHandle))
            #expect(reply.status == 303)
            #expect(reply.header("Set-Login") == "logged-in")
            let session = try #require(other.cookie(SignInSession.cookieName))
            let methods = try harness.store.read {
                try $0.authenticationMethods(sessionHashedID: SecretHash.reference(session))
            }
            #expect(methods == ["swk", "user", "mfa"])
            // Each sign-in's audit row, written with its session, names its methods: the password
            // one that added the passkey, then this one.
            let signIns = try harness.store.read { try $0.auditEvents(involving: user.id, limit: 50) }
                .filter { $0.action == "session.start" }.map(\.details).sorted()
            #expect(signIns == [#"{"methods":["pwd"]}"#, #"{"methods":["swk","user","mfa"]}"#])
        }
    }

    /// Each tampered sign-in gets the same refusal page and no session; the untampered one after
    /// them signs in (so the refusals are the checks', not a broken fixture's).
    @Test func tamperedSignInsAreRefusedAlike() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            try harness.addUser(email: "bob@example.com", name: "Bob")
            let rp = try #require(PasskeyRelyingParty(issuer: harness.issuer))
            var device = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
            let (browser, csrf) = try await signedIn(harness)
            try await add(&device, browser: browser, csrf: csrf)
            // Bob's own passkey, to present his credential id with Ann's handle.
            var bobs = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
            let bob = harness.browser()
            let first = try await bob.get(AccountEndpoint.path)
            _ = try await bob.signIn(at: try #require(first.location), email: "bob@example.com")
            let bobCSRF = try #require(try await bob.get(AccountEndpoint.path).hiddenField("csrf_token"))
            try await add(&bobs, browser: bob, csrf: bobCSRF)

            func attempt(
                _ tamper: (inout SoftwareAuthenticator) -> Void = { _ in }, credentialID: [UInt8]? = nil,
                userHandle: [UInt8]? = nil, challenge issued: [UInt8]? = nil
            ) async throws -> TestReply {
                let other = harness.browser()
                let page = try await other.get(AuthorizationFlow.loginPath)
                let nonce = try await challenge(other)
                var copy = device
                tamper(&copy)
                let assertion = copy.assert(challenge: issued ?? nonce)
                device.signCount = max(device.signCount, copy.signCount)
                let reply = try await other.post(
                    PasskeyEndpoint.signInPath,
                    try signInFields(
                        page, assertion, credentialID: credentialID ?? device.credentialID,
                        userHandle: userHandle ?? device.userHandle))
                if reply.status != 303 { #expect(other.cookie(SignInSession.cookieName) == nil) }
                return reply
            }
            func refused(_ reply: TestReply) -> Bool {
                reply.status == 200 && reply.text.contains(PasskeyText.refused[.english])
            }
            #expect(refused(try await attempt { $0.origin = "https://evil.example" }))
            #expect(refused(try await attempt { $0.rpID = "evil.example" }))
            #expect(refused(try await attempt { $0.flags = AuthenticatorData.userPresent }))
            #expect(refused(try await attempt(challenge: SecureRandom.bytes(count: 32))))
            #expect(refused(try await attempt(credentialID: bobs.credentialID)))
            #expect(refused(try await attempt(userHandle: bobs.userHandle)))
            #expect(refused(try await attempt(credentialID: SecureRandom.bytes(count: 32))))
            // A counter that went back: refused, and noted in the audit log.
            #expect(refused(try await attempt { $0.signCount = 0 }))
            let audit = try harness.store.read { try $0.recentAuditEvents(limit: 50) }
            #expect(audit.contains { $0.action == "user.passkey_refused" && $0.details.contains("signCountRegressed") })
            #expect(try await attempt().status == 303)
        }
    }

    /// A credential removed and then registered again under the same id with another key (a
    /// reset authenticator): the old key, imported and cached by the first sign-in, signs in no
    /// more, and the new one does. The node's key cache goes by the stored key's bytes, never by
    /// the credential id, and the credential is looked up in the store every time.
    @Test func credentialRegisteredAgainSignsInOnlyWithItsNewKey() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let rp = try #require(PasskeyRelyingParty(issuer: harness.issuer))
            var old = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
            let (browser, csrf) = try await signedIn(harness)
            try await add(&old, browser: browser, csrf: csrf)
            func signIn(_ device: inout SoftwareAuthenticator) async throws -> Int {
                let other = harness.browser()
                let page = try await other.get(AuthorizationFlow.loginPath)
                let assertion = device.assert(challenge: try await challenge(other))
                let fields = try signInFields(
                    page, assertion, credentialID: device.credentialID, userHandle: device.userHandle)
                return try await other.post(PasskeyEndpoint.signInPath, fields).status
            }
            #expect(try await signIn(&old) == 303)
            #expect(try await signIn(&old) == 303)
            let removed = try await browser.post(
                PasskeyEndpoint.registrationPath,
                [("csrf_token", csrf), ("passkey_remove", Base64URL.encode(old.credentialID))])
            #expect(removed.status == 303)
            #expect(try await signIn(&old) == 200)
            var reset = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin, credentialID: old.credentialID)
            try await add(&reset, browser: browser, csrf: csrf)
            #expect(try await signIn(&old) == 200)
            #expect(try await signIn(&reset) == 303)
        }
    }

    /// With an authenticator that keeps no counter (always 0), only the challenge stops a
    /// replay: the sealed challenge answers one sign-in, and a second browser posting the very
    /// same assertion gets the refusal page and no session.
    @Test func aChallengeAnswersOneSignInEvenWithoutACounter() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let rp = try #require(PasskeyRelyingParty(issuer: harness.issuer))
            var device = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin, signCount: 0)
            let (browser, csrf) = try await signedIn(harness)
            try await add(&device, browser: browser, csrf: csrf)
            let first = harness.browser()
            let page = try await first.get(AuthorizationFlow.loginPath)
            let assertion = device.assert(challenge: try await challenge(first))
            let fields = try signInFields(
                page, assertion, credentialID: device.credentialID, userHandle: device.userHandle)
            #expect(try await first.post(PasskeyEndpoint.signInPath, fields).status == 303)
            // A node whose clock runs a challenge's lifetime ahead purges now: the use stays
            // recorded (kept past the seal's expiry), so this node still refuses the replay.
            let ahead = Date().addingTimeInterval(PasskeyEndpoint.challengeLifetime + 1)
            #expect(try harness.store.purgeExpired(now: ahead).passkeyChallenges == 0)
            let second = harness.browser()
            let secondPage = try await second.get(AuthorizationFlow.loginPath)
            let replayed = try signInFields(
                secondPage, assertion, credentialID: device.credentialID, userHandle: device.userHandle)
            let replay = try await second.post(PasskeyEndpoint.signInPath, replayed)
            #expect(replay.status == 200 && replay.text.contains(PasskeyText.refused[.english]))
            #expect(second.cookie(SignInSession.cookieName) == nil)
        }
    }

    /// Passkey sign-ins count against the per-address throttle, but one that succeeds takes its
    /// attempt back (as a right password does): a household or an office behind one address
    /// signs in more than the limit's 20 times in 15 minutes.
    @Test func successfulPasskeySignInsDoNotUseUpTheAddressLimit() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let rp = try #require(PasskeyRelyingParty(issuer: harness.issuer))
            var device = try SoftwareAuthenticator(rpID: rp.rpID, origin: rp.origin)
            let (browser, csrf) = try await signedIn(harness)
            try await add(&device, browser: browser, csrf: csrf)
            for round in 0..<(AttemptThrottle.addressLimit + 3) {
                let other = harness.browser()
                let page = try await other.get(AuthorizationFlow.loginPath)
                let assertion = device.assert(challenge: try await challenge(other))
                let fields = try signInFields(
                    page, assertion, credentialID: device.credentialID, userHandle: device.userHandle)
                let reply = try await other.post(PasskeyEndpoint.signInPath, fields)
                #expect(reply.status == 303, "sign-in \(round + 1): \(reply.status)")
            }
        }
    }
}
