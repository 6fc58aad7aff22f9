import Foundation
import PorticoStore
import Testing

/// Native SSO device sessions and pairwise subjects: the primitives the provider's token
/// exchange relies on, with the same meaning on every backend.
struct DeviceSessionTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func deviceSessionsAreFoundByTheirSecretAndEndWithTheirFamilies() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let now = referenceTime
            let browser = BrowserSession(token: "browser", userID: user.id, expiresAt: now.addingTimeInterval(3600))
            let session = DeviceSession(
                secret: "device-secret", userID: user.id, ssoGroup: "vendor", browserSessionHashedID: browser.hashedID,
                scopes: ["openid", "device_sso"], authTime: now, createdAt: now)
            let family = RefreshFamily(
                clientID: client.id, userID: user.id, scopes: ["openid"], authTime: now, createdAt: now)
            try store.transaction { transaction throws in
                try transaction.insert(browser)
                try transaction.insert(session)
                try transaction.insert(family, token: "refresh", expiresAt: now.addingTimeInterval(60))
                try transaction.linkRefreshFamily(family.id, toDeviceSession: session.id)
            }
            try store.read { transaction throws in
                #expect(try transaction.deviceSession(secret: "device-secret") == session)
                #expect(try transaction.deviceSession(secret: "other") == nil)
                #expect(try transaction.deviceSession(id: session.id) == session)
                #expect(try transaction.deviceSessionID(refreshFamilyID: family.id) == session.id)
                #expect(try transaction.hasLiveRefreshFamily(deviceSessionID: session.id, now: now))
                // Alive while the family's token is unexpired.
                #expect(try !transaction.hasLiveRefreshFamily(deviceSessionID: session.id, now: now + 60))
                #expect(try transaction.deviceSessions(browserSessionHashedID: browser.hashedID) == [session])
                #expect(try transaction.deviceSessions(userID: user.id) == [session])
            }
            try store.transaction { transaction throws in
                #expect(try transaction.revokeRefreshFamilies(deviceSessionID: session.id, now: now) == 1)
                #expect(try transaction.revokeRefreshFamilies(deviceSessionID: session.id, now: now) == 0)
                #expect(try !transaction.hasLiveRefreshFamily(deviceSessionID: session.id, now: now))
                #expect(try transaction.revokeDeviceSession(id: session.id, now: now))
                #expect(try !transaction.revokeDeviceSession(id: session.id, now: now))
                #expect(try transaction.deviceSession(id: session.id)?.isRevoked == true)
                #expect(try transaction.deviceSessions(userID: user.id).isEmpty)
                #expect(try transaction.deviceSessions(browserSessionHashedID: browser.hashedID).isEmpty)
            }
        }
    }

    /// A link names a family and a session that exist, once; removing the session unlinks the
    /// family and leaves it, removing the family takes its link.
    func linksNeedBothEndsAndEndWithEither() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let now = referenceTime
            let session = Self.session("device-secret", of: user)
            let family = Self.family(of: user, for: client)
            try store.transaction { transaction throws in
                try transaction.insert(session)
                try transaction.insert(family, token: "refresh", expiresAt: now.addingTimeInterval(30 * 86_400))
            }
            #expect(throws: StoreError.missingReference("refresh family or device session")) {
                try store.transaction { try $0.linkRefreshFamily("no-such-family", toDeviceSession: session.id) }
            }
            #expect(throws: StoreError.missingReference("refresh family or device session")) {
                try store.transaction { try $0.linkRefreshFamily(family.id, toDeviceSession: "no-such-session") }
            }
            try store.transaction { try $0.linkRefreshFamily(family.id, toDeviceSession: session.id) }
            #expect(try store.read { try $0.deviceSessionID(refreshFamilyID: family.id) } == session.id)
            // A family goes linked to another session, and leaves only once: no quiet relinking.
            #expect(throws: StoreError.self) {
                try store.transaction { try $0.linkRefreshFamily(family.id, toDeviceSession: session.id) }
            }
            // A family stored already linked, as a Native SSO exchange stores its own.
            let exchanged = Self.family(of: user, for: client)
            try store.transaction { transaction throws in
                try transaction.insert(
                    exchanged, token: "exchanged", expiresAt: now.addingTimeInterval(60), inDeviceSession: session.id)
            }
            #expect(try store.read { try $0.deviceSessionID(refreshFamilyID: exchanged.id) } == session.id)
            #expect(throws: StoreError.missingReference("client, user or device session")) {
                try store.transaction { transaction throws in
                    try transaction.insert(
                        Self.family(of: user, for: client), token: "orphan", expiresAt: now.addingTimeInterval(60),
                        inDeviceSession: "no-such-session")
                }
            }
            // A second session whose only family expires.
            let brief = Self.session("brief-secret", of: user)
            let briefFamily = Self.family(of: user, for: client)
            try store.transaction { transaction throws in
                try transaction.insert(brief)
                try transaction.insert(briefFamily, token: "brief", expiresAt: now.addingTimeInterval(60))
                try transaction.linkRefreshFamily(briefFamily.id, toDeviceSession: brief.id)
                // The purge removes a session revoked days ago.
                #expect(try transaction.revokeDeviceSession(id: session.id, now: now))
            }
            _ = try store.purgeExpired(now: now.addingTimeInterval(2 * 86_400))
            // The revoked session is gone and its family (still valid) stays, unlinked.
            #expect(try store.read { try $0.deviceSession(id: session.id) } == nil)
            #expect(try store.refreshFamily(id: family.id) != nil)
            #expect(try store.read { try $0.deviceSessionID(refreshFamilyID: family.id) } == nil)
            // The expired family went with its link, and then its session, which had no other.
            #expect(try store.refreshFamily(id: briefFamily.id) == nil)
            #expect(try store.read { try $0.deviceSession(id: brief.id) } == nil)
        }
    }

    /// A device session of `user` in the group "vendor", begun at the reference time.
    private static func session(_ secret: String, of user: UserRecord) -> DeviceSession {
        DeviceSession(
            secret: secret, userID: user.id, ssoGroup: "vendor", scopes: ["openid"], authTime: referenceTime,
            createdAt: referenceTime)
    }

    /// A refresh family of `user` for `client`, begun at the reference time.
    private static func family(of user: UserRecord, for client: Client) -> RefreshFamily {
        RefreshFamily(
            clientID: client.id, userID: user.id, scopes: ["openid"], authTime: referenceTime, createdAt: referenceTime)
    }

    func pairwiseSubjectsAndProviderSecrets() throws {
        try withStore { store throws in
            let (user, _) = try StoreFixtures.userAndClient(in: store)
            try store.transaction { transaction throws in
                #expect(try transaction.providerSecret(name: "salt", candidate: [1, 2, 3]) == [1, 2, 3])
                #expect(try transaction.providerSecret(name: "salt", candidate: [9]) == [1, 2, 3])
                try transaction.recordPairwiseSubject("sub-a", sector: "shop.example", userID: user.id)
                try transaction.recordPairwiseSubject("sub-a", sector: "shop.example", userID: user.id)
            }
            try store.read { transaction throws in
                #expect(try transaction.userID(pairwiseSubject: "sub-a", sector: "shop.example") == user.id)
                #expect(try transaction.userID(pairwiseSubject: "sub-a", sector: "news.example") == nil)
            }
        }
    }
}

/// The checks of this file, named as the tests they are.
enum DeviceSessionChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("DeviceSessionTests.deviceSessionsAreFoundByTheirSecretAndEndWithTheirFamilies") {
                try DeviceSessionTests(open: $0).deviceSessionsAreFoundByTheirSecretAndEndWithTheirFamilies()
            },
            .init("DeviceSessionTests.linksNeedBothEndsAndEndWithEither") {
                try DeviceSessionTests(open: $0).linksNeedBothEndsAndEndWithEither()
            },
            .init("DeviceSessionTests.pairwiseSubjectsAndProviderSecrets") {
                try DeviceSessionTests(open: $0).pairwiseSubjectsAndProviderSecrets()
            },
        ]
    }
}
