import Foundation
import PorticoStore
import Testing

/// The purge takes Native SSO device sessions once nothing issued in them is left: on every
/// backend, a session whose refresh families were all purged, and one revoked a day ago, go;
/// one with a live family stays.
struct DeviceSessionPurgeTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func purgeTakesDeviceSessionsWithoutFamilies() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let now = referenceTime
            func session(_ secret: String, revokedAt: Date? = nil) -> DeviceSession {
                DeviceSession(
                    secret: secret, userID: user.id, ssoGroup: "vendor", browserSessionHashedID: nil,
                    scopes: ["openid", "device_sso"], authTime: now, createdAt: now, revokedAt: revokedAt)
            }
            let ended = session("ended")
            let live = session("live")
            let revoked = session("revoked", revokedAt: now)
            let endedFamily = RefreshFamily(
                clientID: client.id, userID: user.id, scopes: ["openid"], authTime: now, createdAt: now)
            let liveFamily = RefreshFamily(
                clientID: client.id, userID: user.id, scopes: ["openid"], authTime: now, createdAt: now)
            let later = now.addingTimeInterval(3 * 86_400)
            try store.transaction { transaction throws in
                for item in [ended, live, revoked] { try transaction.insert(item) }
                try transaction.insert(endedFamily, token: "ended-refresh", expiresAt: now.addingTimeInterval(60))
                try transaction.insert(liveFamily, token: "live-refresh", expiresAt: later.addingTimeInterval(86_400))
                try transaction.linkRefreshFamily(endedFamily.id, toDeviceSession: ended.id)
                try transaction.linkRefreshFamily(liveFamily.id, toDeviceSession: live.id)
            }
            // Nothing is due yet a minute on.
            let early = try store.transaction { try $0.purgeExpired(now: now.addingTimeInterval(120)) }
            #expect(early.deviceSessions == 0)
            // Families are purged a slice per run, going round the table: two runs cover it.
            let first = try store.transaction { try $0.purgeExpired(now: later) }
            let second = try store.transaction { try $0.purgeExpired(now: later) }
            #expect(first.deviceSessions + second.deviceSessions == 2)
            try store.read { transaction throws in
                #expect(try transaction.deviceSession(id: ended.id) == nil)
                #expect(try transaction.deviceSession(id: revoked.id) == nil)
                #expect(try transaction.deviceSession(id: live.id) == live)
                #expect(try transaction.hasLiveRefreshFamily(deviceSessionID: live.id, now: later))
            }
        }
    }
}

/// The checks of this file, named as the tests they are.
enum DeviceSessionPurgeChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("DeviceSessionPurgeTests.purgeTakesDeviceSessionsWithoutFamilies") {
                try DeviceSessionPurgeTests(open: $0).purgeTakesDeviceSessionsWithoutFamilies()
            }
        ]
    }
}
