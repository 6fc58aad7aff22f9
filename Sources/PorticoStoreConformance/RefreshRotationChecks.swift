import Foundation
import PorticoStore
import Testing

/// The one-step rotation (``RefreshRotationStorage``, run by ``Store/writeOne(_:)``): it rotates
/// only when every condition holds, writes exactly what the two-step rotation writes, returns
/// the rows that hang off the family, and changes nothing otherwise. (That two of them racing on
/// one token end as two two-step rotations do is the provider's policy's check.)
struct RefreshRotationTests: ConformanceChecks {
    let open: StoreConformance.Opener

    /// A stored family of `user` and `client` with its first token, valid for a day.
    private func family(_ user: UserRecord, _ client: Client, in store: any Store) throws -> (RefreshFamily, String) {
        let family = RefreshFamily(
            clientID: client.id, userID: user.id, scopes: ["openid", "profile"], authTime: referenceTime,
            createdAt: referenceTime)
        let token = RefreshToken.mint(familyID: family.id)
        try store.transaction {
            try $0.insert(family, token: token, expiresAt: referenceTime.addingTimeInterval(86_400))
        }
        return (family, token)
    }

    /// The one-step rotation of `token` by `clientID` at `now`, to a fresh successor.
    private func rotate(
        _ token: String, familyID: String, clientID: String, now: Date, in store: any Store,
        successor: String? = nil
    ) throws -> RefreshRotationRecord? {
        let next = successor ?? RefreshToken.mint(familyID: familyID)
        return try store.writeOne {
            try $0.rotateRefreshToken(
                familyID: familyID, from: SecretHash.digest(token), to: SecretHash.digest(next), clientID: clientID,
                now: now, expiresAt: now.addingTimeInterval(86_400))
        }
    }

    func aOneStepRotationWritesWhatTheTwoStepOneWritesAndReadsWhatHangsOffTheFamily() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let (family, token) = try family(user, client, in: store)
            let browser = BrowserSession(token: "browser", userID: user.id, expiresAt: referenceTime + 3600)
            let session = DeviceSession(
                secret: "device-secret", userID: user.id, ssoGroup: "vendor", browserSessionHashedID: browser.hashedID,
                scopes: ["openid", "device_sso"], authTime: referenceTime, createdAt: referenceTime)
            try store.transaction { transaction throws in
                try transaction.insert(browser)
                try transaction.insert(session)
                try transaction.linkRefreshFamily(family.id, toDeviceSession: session.id)
                try transaction.linkRefreshFamily(family.id, toBrowserSession: browser.hashedID, sessionID: "sid-1")
                try transaction.recordResource("https://api.example/", forRefreshFamily: family.id)
                try transaction.recordAuthenticationMethods(["pwd", "otp"], forRefreshFamily: family.id)
            }
            let now = referenceTime.addingTimeInterval(10)
            let successor = RefreshToken.mint(familyID: family.id)
            let record = try #require(
                try rotate(token, familyID: family.id, clientID: client.id, now: now, in: store, successor: successor))
            #expect(record.family == family)
            #expect(record.user == user)
            #expect(record.resource == "https://api.example/")
            #expect(record.authenticationMethods == ["pwd", "otp"])
            #expect(record.sessionID == "sid-1")
            #expect(record.deviceSessionID == session.id)
            #expect(record.grantRevokedAt == nil)
            let state = try #require(try store.read { try $0.refreshTokenState(familyID: family.id) })
            #expect(state.currentTokenHash == SecretHash.digest(successor))
            #expect(state.previousTokenHash == SecretHash.digest(token))
            #expect(state.rotatedAt == now)
            #expect(state.issuedAt == now)
            #expect(state.expiresAt == now.addingTimeInterval(86_400))
            // That the presented token is now, to the provider's policy, the one just replaced is
            // checked with the policy (PorticoTesting's PolicyChecks).
            // A family with nothing hanging off it reads as nils, but the removal of its grant
            // (the person and client's, not the family's) comes with it.
            let removedAt = referenceTime.addingTimeInterval(5)
            try store.transaction {
                try $0.revokeGrant(
                    userID: user.id, clientID: client.id, at: removedAt, expiresAt: referenceTime + 86_400)
            }
            let (bare, bareToken) = try self.family(user, client, in: store)
            let plain = try #require(try rotate(bareToken, familyID: bare.id, clientID: client.id, now: now, in: store))
            #expect(plain.resource == nil && plain.authenticationMethods == nil)
            #expect(plain.sessionID == nil && plain.deviceSessionID == nil)
            #expect(plain.grantRevokedAt == removedAt)
        }
    }

    func aOneStepRotationChangesNothingWhenAnyConditionFails() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let other = StoreFixtures.client()
            try store.insert(other)
            let (family, token) = try family(user, client, in: store)
            let now = referenceTime.addingTimeInterval(10)
            let before = try store.read { try $0.refreshTokenState(familyID: family.id) }
            func unchanged(_ why: Comment) throws {
                #expect(try store.read { try $0.refreshTokenState(familyID: family.id) } == before, why)
            }
            // Another client's token.
            #expect(try rotate(token, familyID: family.id, clientID: other.id, now: now, in: store) == nil)
            try unchanged("another client")
            // Not the current token.
            #expect(
                try rotate(
                    RefreshToken.mint(familyID: family.id), familyID: family.id, clientID: client.id, now: now,
                    in: store) == nil)
            try unchanged("another token")
            // No such family.
            #expect(try rotate(token, familyID: "no-such-family", clientID: client.id, now: now, in: store) == nil)
            // Expired: at the expiry second, as StoredTime.isExpired says.
            let expiry = referenceTime.addingTimeInterval(86_400)
            #expect(try rotate(token, familyID: family.id, clientID: client.id, now: expiry, in: store) == nil)
            try unchanged("expired")
            // A disabled account.
            var disabled = user
            disabled.isDisabled = true
            try store.update(disabled)
            #expect(try rotate(token, familyID: family.id, clientID: client.id, now: now, in: store) == nil)
            try unchanged("disabled account")
            try store.update(user)
            // A revoked family.
            try store.transaction { _ = try $0.revokeRefreshFamily(id: family.id, now: now) }
            let revoked = try store.read { try $0.refreshTokenState(familyID: family.id) }
            #expect(try rotate(token, familyID: family.id, clientID: client.id, now: now, in: store) == nil)
            #expect(try store.read { try $0.refreshTokenState(familyID: family.id) } == revoked)
            // Just before the expiry second, a live family's token rotates.
            let (live, liveToken) = try self.family(user, client, in: store)
            #expect(
                try rotate(liveToken, familyID: live.id, clientID: client.id, now: expiry - 1, in: store) != nil)
        }
    }

}

/// The checks of this file, named as the tests they are.
enum RefreshRotationChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("RefreshRotationTests.aOneStepRotationWritesWhatTheTwoStepOneWritesAndReadsWhatHangsOffTheFamily") {
                try RefreshRotationTests(open: $0)
                    .aOneStepRotationWritesWhatTheTwoStepOneWritesAndReadsWhatHangsOffTheFamily()
            },
            .init("RefreshRotationTests.aOneStepRotationChangesNothingWhenAnyConditionFails") {
                try RefreshRotationTests(open: $0).aOneStepRotationChangesNothingWhenAnyConditionFails()
            },
        ]
    }
}
