import Foundation
import PorticoStore
import Testing

struct BrowserSessionTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func createLookUpTouchDelete() throws {
        try withStore { store throws in
            let (user, _) = try StoreFixtures.userAndClient(in: store)
            let session = BrowserSession(
                token: "cookie-value", userID: user.id, createdAt: referenceTime,
                expiresAt: referenceTime.addingTimeInterval(3600), isPersistent: true, userAgent: "Firefox",
                ipAddress: "192.0.2.1")
            try store.insert(session)
            #expect(session.hashedID != "cookie-value")
            #expect(try store.session(token: "cookie-value", now: referenceTime) == session)
            #expect(try store.session(token: "other", now: referenceTime) == nil)
            #expect(try store.session(token: "cookie-value", now: referenceTime.addingTimeInterval(3600)) == nil)

            let later = referenceTime.addingTimeInterval(600)
            #expect(
                try store.touchSession(
                    token: "cookie-value", lastSeenAt: later, expiresAt: later.addingTimeInterval(7200)))
            let touched = try #require(try store.session(token: "cookie-value", now: later))
            #expect(touched.lastSeenAt == later)
            #expect(touched.expiresAt == later.addingTimeInterval(7200))

            let second = BrowserSession(
                token: "second", userID: user.id, createdAt: referenceTime.addingTimeInterval(1),
                expiresAt: referenceTime.addingTimeInterval(60))
            try store.insert(second)
            #expect(try store.sessions(userID: user.id).map(\.hashedID) == [second.hashedID, session.hashedID])

            #expect(try store.deleteSession(hashedID: second.hashedID))
            #expect(try store.deleteSession(hashedID: "not a hash") == false)
            #expect(try store.deleteSession(token: "cookie-value"))
            #expect(try store.sessions(userID: user.id).isEmpty)

            for index in 0..<3 {
                try store.insert(
                    BrowserSession(token: "s\(index)", userID: user.id, expiresAt: referenceTime.addingTimeInterval(60))
                )
            }
            #expect(try store.deleteSessions(userID: user.id) == 3)
        }
    }

    func sessionForUnknownUserIsAMissingReference() throws {
        try withStore { store throws in
            let session = BrowserSession(token: "t", userID: "nobody", expiresAt: referenceTime)
            #expect(throws: StoreError.missingReference("user")) { try store.insert(session) }
        }
    }

    func deletingAUserRemovesTheirSessions() throws {
        try withStore { store throws in
            let (user, _) = try StoreFixtures.userAndClient(in: store)
            try store.insert(
                BrowserSession(token: "t", userID: user.id, expiresAt: referenceTime.addingTimeInterval(60)))
            try store.deleteUser(id: user.id)
            #expect(try store.session(token: "t", now: referenceTime) == nil)
        }
    }
}

struct AuthorizationCodeTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func storedOnlyAsHashAndReadBack() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let code = StoreFixtures.code("the-code", user: user, client: client)
            try store.insert(code)
            #expect(try store.authorizationCode("the-code") == code)
            #expect(try store.authorizationCode(code.hashedCode) == nil)
        }
    }

    func redemptionIsSingleUseAndRemembersWhatItIssued() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            try store.insert(StoreFixtures.code("the-code", user: user, client: client))
            let now = referenceTime.addingTimeInterval(5)

            let family = RefreshFamily(
                clientID: client.id, userID: user.id, scopes: ["openid"], authTime: referenceTime)
            let redeemed = try store.transaction { transaction -> AuthorizationCode? in
                guard case .redeemed(let code) = try transaction.redeemAuthorizationCode("the-code", now: now) else {
                    return nil
                }
                try transaction.insert(
                    family, token: RefreshToken.mint(familyID: family.id), expiresAt: now.addingTimeInterval(86_400))
                try transaction.recordIssuance(
                    forCode: code.hashedCode, refreshFamilyID: family.id, accessTokenID: "jti-1",
                    accessTokenExpiresAt: now.addingTimeInterval(3600))
                return code
            }
            #expect(redeemed?.consumedAt == now)

            guard case .alreadyUsed(let replayed) = try store.redeemAuthorizationCode("the-code", now: now) else {
                Issue.record("a second redemption must report reuse")
                return
            }
            #expect(replayed.issuedRefreshFamilyID == family.id)
            #expect(replayed.issuedAccessTokenID == "jti-1")
            #expect(replayed.issuedAccessTokenExpiresAt == now.addingTimeInterval(3600))
            #expect(try store.redeemAuthorizationCode("never-issued", now: now) == .notFound)
        }
    }

    func expiredCodeIsNotRedeemed() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            try store.insert(StoreFixtures.code("late", user: user, client: client))
            #expect(try store.redeemAuthorizationCode("late", now: referenceTime.addingTimeInterval(60)) == .expired)
            #expect(try store.authorizationCode("late")?.consumedAt == nil)
        }
    }

    func concurrentRedemptionsSucceedOnce() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            try store.insert(StoreFixtures.code("contested", user: user, client: client))
            let outcomes = LockedList<String>()
            let finished = runOnThreads(8) { _ in
                do {
                    switch try store.redeemAuthorizationCode("contested", now: referenceTime) {
                    case .redeemed: outcomes.append("redeemed")
                    case .alreadyUsed: outcomes.append("alreadyUsed")
                    default: outcomes.append("other")
                    }
                } catch {
                    outcomes.append("error: \(error)")
                }
            }
            #expect(finished)
            #expect(outcomes.all.filter { $0 == "redeemed" }.count == 1)
            #expect(outcomes.all.filter { $0 == "alreadyUsed" }.count == 7)
        }
    }

    /// Of many replays of a redeemed code, running at once, exactly one forgets what it issued
    /// (so the provider revokes once); the code stays consumed, and later replays forget nothing.
    func forgettingWhatACodeIssuedSucceedsOnce() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            try store.insert(StoreFixtures.code("replayed", user: user, client: client))
            let hashed = SecretHash.reference("replayed")
            try store.transaction { transaction throws in
                guard case .redeemed = try transaction.redeemAuthorizationCode("replayed", now: referenceTime) else {
                    Issue.record("the first redemption must succeed")
                    return
                }
                // Nothing recorded yet: nothing to forget.
                #expect(try !transaction.forgetIssuance(forCode: hashed))
                try transaction.recordIssuance(
                    forCode: hashed, refreshFamilyID: nil, accessTokenID: "jti-1",
                    accessTokenExpiresAt: referenceTime.addingTimeInterval(3600))
            }
            let outcomes = LockedList<String>()
            let finished = runOnThreads(8) { _ in
                do {
                    let forgot = try store.transaction { try $0.forgetIssuance(forCode: hashed) }
                    outcomes.append(forgot ? "forgot" : "nothing")
                } catch {
                    outcomes.append("error: \(error)")
                }
            }
            #expect(finished)
            #expect(outcomes.all.filter { $0 == "forgot" }.count == 1)
            #expect(outcomes.all.filter { $0 == "nothing" }.count == 7)
            #expect(try store.transaction { try $0.forgetIssuance(forCode: hashed) } == false)
            guard case .alreadyUsed(let replayed) = try store.redeemAuthorizationCode("replayed", now: referenceTime)
            else {
                Issue.record("a replay must still be recognised")
                return
            }
            #expect(replayed.issuedAccessTokenID == nil)
            #expect(replayed.issuedRefreshFamilyID == nil)
        }
    }

    func codeForUnknownClientIsAMissingReference() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            var orphan = client
            orphan.id = "unknown-client"
            #expect(throws: StoreError.missingReference("client or user")) {
                try store.insert(StoreFixtures.code("x", user: user, client: orphan))
            }
        }
    }
}

struct ConsentTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func consentForUnknownClientIsAMissingReference() throws {
        try withStore { store throws in
            let (user, _) = try StoreFixtures.userAndClient(in: store)
            #expect(throws: StoreError.missingReference("user or client")) {
                // The write the provider's consent union ends in.
                try store.transaction {
                    try $0.saveConsent(userID: user.id, clientID: "nope", scopes: ["openid"], now: referenceTime)
                }
            }
        }
    }
}

/// The checks of this file, named as the tests they were.
enum SessionCodeConsentChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("BrowserSessionTests.createLookUpTouchDelete") {
                try BrowserSessionTests(open: $0).createLookUpTouchDelete()
            },
            .init("BrowserSessionTests.sessionForUnknownUserIsAMissingReference") {
                try BrowserSessionTests(open: $0).sessionForUnknownUserIsAMissingReference()
            },
            .init("BrowserSessionTests.deletingAUserRemovesTheirSessions") {
                try BrowserSessionTests(open: $0).deletingAUserRemovesTheirSessions()
            },
            .init("AuthorizationCodeTests.storedOnlyAsHashAndReadBack") {
                try AuthorizationCodeTests(open: $0).storedOnlyAsHashAndReadBack()
            },
            .init("AuthorizationCodeTests.redemptionIsSingleUseAndRemembersWhatItIssued") {
                try AuthorizationCodeTests(open: $0).redemptionIsSingleUseAndRemembersWhatItIssued()
            },
            .init("AuthorizationCodeTests.expiredCodeIsNotRedeemed") {
                try AuthorizationCodeTests(open: $0).expiredCodeIsNotRedeemed()
            },
            .init("AuthorizationCodeTests.concurrentRedemptionsSucceedOnce") {
                try AuthorizationCodeTests(open: $0).concurrentRedemptionsSucceedOnce()
            },
            .init("AuthorizationCodeTests.forgettingWhatACodeIssuedSucceedsOnce") {
                try AuthorizationCodeTests(open: $0).forgettingWhatACodeIssuedSucceedsOnce()
            },
            .init("AuthorizationCodeTests.codeForUnknownClientIsAMissingReference") {
                try AuthorizationCodeTests(open: $0).codeForUnknownClientIsAMissingReference()
            },
            .init("ConsentTests.consentForUnknownClientIsAMissingReference") {
                try ConsentTests(open: $0).consentForUnknownClientIsAMissingReference()
            },
        ]
    }
}
