import Foundation
import PorticoServer
import PorticoStore
import Testing

struct RefreshTokenTests: ConformanceChecks {
    let open: StoreConformance.Opener

    /// A family with its first token `token(0)`, valid for a day from `referenceTime`.
    private func family(in store: any Store) throws -> RefreshFamily {
        let (user, client) = try StoreFixtures.userAndClient(in: store)
        let family = RefreshFamily(
            clientID: client.id, userID: user.id, scopes: ["openid", "profile"], authTime: referenceTime,
            createdAt: referenceTime)
        try store.insert(family, token: token(0, of: family), expiresAt: referenceTime.addingTimeInterval(86_400))
        return family
    }

    /// A family whose first token was rotated to `token(1)` at `rotatedAt`; `expiry` is the
    /// successor's.
    private func familyRotatedOnce(in store: any Store) throws
        -> (family: RefreshFamily, rotatedAt: Date, expiry: Date)
    {
        let family = try family(in: store)
        let rotatedAt = referenceTime.addingTimeInterval(10)
        let expiry = rotatedAt.addingTimeInterval(86_400)
        _ = try store.transaction {
            try refreshPolicy.rotate(token(0, of: family), in: $0, now: rotatedAt) { _ in token(1, of: family) }
        }
        return (family, rotatedAt, expiry)
    }

    /// Token `number` of `family`, named as minted tokens are.
    private func token(_ number: Int, of family: RefreshFamily) -> String {
        "\(family.id).r\(number)"
    }

    func mintedTokensNameTheirFamilyAndAreRandom() {
        let first = RefreshToken.mint(familyID: "FAMILY")
        let second = RefreshToken.mint(familyID: "FAMILY")
        #expect(first.hasPrefix("FAMILY."))
        #expect(first != second)
        #expect(first.count == "FAMILY.".count + 43)
    }

    func rotationReplacesTheCurrentToken() throws {
        try withStore { store throws in
            let family = try family(in: store)
            let now = referenceTime.addingTimeInterval(10)
            let expiry = now.addingTimeInterval(86_400)
            #expect(
                try store.read { try RefreshTokenPolicy.token(token(0, of: family), in: $0) }?.issuedAt == referenceTime
            )
            guard
                case .rotated(let rotatedFamily, let successor) = try store.transaction({
                    try refreshPolicy.rotate(token(0, of: family), in: $0, now: now) { _ in token(1, of: family) }
                })
            else {
                Issue.record("a current token must rotate")
                return
            }
            #expect(rotatedFamily == family)
            #expect(successor == (try store.read { try RefreshTokenPolicy.token(token(1, of: family), in: $0) }))
            #expect(successor.issuedAt == now && successor.expiresAt == expiry && successor.rotatedAt == nil)
            let old = try #require(try store.read { try RefreshTokenPolicy.token(token(0, of: family), in: $0) })
            #expect(old.rotatedAt == now)
            #expect(old.familyID == family.id)

            guard
                case .rotated = try store.transaction({
                    try refreshPolicy.rotate(token(1, of: family), in: $0, now: now) { _ in token(2, of: family) }
                })
            else {
                Issue.record("the successor must rotate in turn")
                return
            }
            // Two rotations back: no longer stored at all, and not presented as anything.
            #expect(try store.read { try RefreshTokenPolicy.token(token(0, of: family), in: $0) } == nil)
        }
    }

    func theTokenJustReplacedIsReportedWithItsTime() throws {
        try withStore { store throws in
            let (family, now, expiry) = try familyRotatedOnce(in: store)
            let again = try store.transaction {
                try refreshPolicy.rotate(token(0, of: family), in: $0, now: now.addingTimeInterval(30)) { _ in
                    token(9, of: family)
                }
            }
            #expect(again == .previous(family: family, rotatedAt: now))
            // Nothing changed: the successor is still current, the attempt's token unknown.
            #expect(try store.read { try RefreshTokenPolicy.token(token(1, of: family), in: $0) }?.rotatedAt == nil)
            #expect(try store.read { try RefreshTokenPolicy.token(token(9, of: family), in: $0) } == nil)
        }
    }

    func supersedingReplacesTheUnusedCurrentToken() throws {
        try withStore { store throws in
            let (family, now, expiry) = try familyRotatedOnce(in: store)
            let later = now.addingTimeInterval(5)
            #expect(
                try store.transaction {
                    try refreshPolicy.supersede(
                        familyID: family.id, replacement: token(2, of: family), in: $0, now: later)
                })
            #expect(try store.read { try RefreshTokenPolicy.token(token(2, of: family), in: $0) }?.issuedAt == later)
            #expect(try store.read { try RefreshTokenPolicy.token(token(1, of: family), in: $0) } == nil)
            // The token presented for it stays "the one just replaced", with the first time.
            #expect(
                try store.transaction {
                    try refreshPolicy.rotate(token(0, of: family), in: $0, now: later) { _ in token(3, of: family) }
                }
                    == .previous(family: family, rotatedAt: now))
            // The superseded token coming back is an older token of the family.
            #expect(
                try store.transaction {
                    try refreshPolicy.rotate(token(1, of: family), in: $0, now: later) { _ in token(3, of: family) }
                }
                    == .reused(family: family))
            try store.revokeRefreshFamily(id: family.id, now: later)
            #expect(
                try !store.transaction {
                    try refreshPolicy.supersede(
                        familyID: family.id, replacement: token(4, of: family), in: $0, now: later)
                })
        }
    }

    func anOlderTokenIsReuseAndThenTheFamilyIsRevoked() throws {
        try withStore { store throws in
            let family = try family(in: store)
            let now = referenceTime.addingTimeInterval(10)
            let expiry = now.addingTimeInterval(86_400)
            for number in 0..<3 {
                _ = try store.transaction {
                    try refreshPolicy.rotate(token(number, of: family), in: $0, now: now) { _ in
                        token(number + 1, of: family)
                    }
                }
            }
            #expect(
                try store.transaction { try refreshPolicy.rotate(token(1, of: family), in: $0, now: now) { _ in "x" } }
                    == .reused(family: family))
            // Anything else that names the family is treated alike: only its tokens carry its id.
            #expect(
                try store.transaction { try refreshPolicy.rotate("\(family.id).forged", in: $0, now: now) { _ in "x" } }
                    == .reused(family: family))

            // The provider revokes the family; then even the current token is refused.
            #expect(try store.revokeRefreshFamily(id: family.id, now: now))
            #expect(try store.refreshFamily(id: family.id)?.isRevoked == true)
            guard
                case .revoked = try store.transaction({
                    try refreshPolicy.rotate(token(3, of: family), in: $0, now: now) { _ in token(4, of: family) }
                })
            else {
                Issue.record("a revoked family must not refresh")
                return
            }
        }
    }

    func concurrentRotationsOfOneTokenSucceedOnce() throws {
        try withStore { store throws in
            let family = try family(in: store)
            let outcomes = LockedList<String>()
            let finished = runOnThreads(8) { index in
                do {
                    let result = try store.transaction {
                        try refreshPolicy.rotate(token(0, of: family), in: $0, now: referenceTime) { _ in
                            "\(family.id).next-\(index)"
                        }
                    }
                    switch result {
                    case .rotated: outcomes.append("rotated")
                    case .previous: outcomes.append("previous")
                    default: outcomes.append("other")
                    }
                } catch {
                    outcomes.append("error: \(error)")
                }
            }
            #expect(finished)
            #expect(outcomes.all.filter { $0 == "rotated" }.count == 1)
            #expect(outcomes.all.filter { $0 == "previous" }.count == 7)
        }
    }

    func expiredAndUnknownTokensDoNotRotate() throws {
        try withStore { store throws in
            let family = try family(in: store)
            let late = referenceTime.addingTimeInterval(86_400)
            guard
                case .expired = try store.transaction({
                    try refreshPolicy.rotate(token(0, of: family), in: $0, now: late) { _ in token(1, of: family) }
                })
            else {
                Issue.record("an expired token must not rotate")
                return
            }
            for unknown in ["unknown", "nofamily.r0", ".r0", ""] {
                #expect(
                    try store.transaction {
                        try refreshPolicy.rotate(unknown, in: $0, now: referenceTime) { _ in "r1" }
                    }
                        == .notFound)
                #expect(try store.read { try RefreshTokenPolicy.token(unknown, in: $0) } == nil)
            }
        }
    }

    func familiesListAndRevokeByUserAndClient() throws {
        try withStore { store throws in
            let family = try family(in: store)
            let second = RefreshFamily(
                clientID: family.clientID, userID: family.userID, scopes: ["openid"], authTime: referenceTime,
                createdAt: referenceTime.addingTimeInterval(1))
            try store.insert(second, token: token(0, of: second), expiresAt: referenceTime.addingTimeInterval(60))
            #expect(try store.refreshFamilies(userID: family.userID).map(\.id) == [second.id, family.id])
            #expect(
                try store.revokeRefreshFamilies(userID: family.userID, clientID: family.clientID, now: referenceTime)
                    == 2)
            #expect(try store.refreshFamilies(userID: family.userID).isEmpty)
            #expect(try store.refreshFamilies(userID: family.userID, includeRevoked: true).count == 2)
            let orphan = RefreshFamily(clientID: "none", userID: "none", scopes: [], authTime: referenceTime)
            #expect(throws: StoreError.missingReference("client or user")) {
                try store.insert(orphan, token: "t", expiresAt: referenceTime)
            }
        }
    }
}

struct AccessTokenRevocationTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func revokeCheckAndPurge() throws {
        try withStore { store throws in
            try store.revokeAccessToken(id: "jti-1", expiresAt: referenceTime.addingTimeInterval(3600))
            try store.revokeAccessToken(id: "jti-1", expiresAt: referenceTime.addingTimeInterval(60))
            try store.revokeAccessToken(id: "jti-2", expiresAt: referenceTime)
            #expect(try store.isAccessTokenRevoked(id: "jti-1"))
            #expect(try store.isAccessTokenRevoked(id: "jti-2"))
            #expect(try !store.isAccessTokenRevoked(id: "jti-3"))
            let report = try store.purgeExpired(now: referenceTime.addingTimeInterval(120))
            #expect(report.accessTokenRevocations == 1)
            #expect(try store.isAccessTokenRevoked(id: "jti-1"))
            #expect(try !store.isAccessTokenRevoked(id: "jti-2"))
        }
    }
}

struct DeviceAuthorizationTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func approveThenPollConsumesOnce() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let authorization = DeviceAuthorization(
                deviceCode: "device-secret", userCode: "wdjb-mjht", clientID: client.id, scopes: ["openid"],
                createdAt: referenceTime, expiresAt: referenceTime.addingTimeInterval(600), interval: 5)
            try store.insert(authorization)
            #expect(authorization.userCode == "WDJBMJHT")
            #expect(try store.deviceAuthorization(userCode: "WDJB MJHT", now: referenceTime) == authorization)
            #expect(try store.deviceAuthorization(deviceCode: "device-secret") == authorization)

            #expect(
                try store.transaction {
                    try DevicePollPolicy().poll(deviceCode: "device-secret", in: $0, now: referenceTime)
                } == .pending)
            #expect(
                try store.transaction {
                    try DevicePollPolicy().poll(
                        deviceCode: "device-secret", in: $0, now: referenceTime.addingTimeInterval(2))
                }
                    == .slowDown(interval: 10))
            #expect(
                try store.transaction {
                    try DevicePollPolicy().poll(
                        deviceCode: "device-secret", in: $0, now: referenceTime.addingTimeInterval(13))
                }
                    == .pending)

            #expect(
                try store.approveDeviceAuthorization(
                    userCode: "wdjbmjht", userID: user.id, authTime: referenceTime, now: referenceTime))
            #expect(try !store.denyDeviceAuthorization(userCode: "wdjbmjht", now: referenceTime))
            guard
                case .approved(let approved) = try store.transaction({
                    try DevicePollPolicy().poll(
                        deviceCode: "device-secret", in: $0, now: referenceTime.addingTimeInterval(30))
                })
            else {
                Issue.record("an approved authorization must yield tokens")
                return
            }
            #expect(approved.userID == user.id)
            #expect(approved.status == .consumed)
            #expect(
                try store.transaction {
                    try DevicePollPolicy().poll(
                        deviceCode: "device-secret", in: $0, now: referenceTime.addingTimeInterval(60))
                }
                    == .expired)
            #expect(
                try store.transaction { try DevicePollPolicy().poll(deviceCode: "unknown", in: $0, now: referenceTime) }
                    == .notFound)
        }
    }

    func denyAndExpiry() throws {
        try withStore { store throws in
            let (_, client) = try StoreFixtures.userAndClient(in: store)
            try store.insert(
                DeviceAuthorization(
                    deviceCode: "d1", userCode: "AAAA-BBBB", clientID: client.id, scopes: [], createdAt: referenceTime,
                    expiresAt: referenceTime.addingTimeInterval(600)))
            #expect(try store.denyDeviceAuthorization(userCode: "aaaabbbb", now: referenceTime))
            #expect(
                try store.transaction { try DevicePollPolicy().poll(deviceCode: "d1", in: $0, now: referenceTime) }
                    == .denied)
            #expect(
                try store.transaction {
                    try DevicePollPolicy().poll(deviceCode: "d1", in: $0, now: referenceTime.addingTimeInterval(600))
                }
                    == .expired)
        }
    }

    func userCodeIsUniqueOnlyWhileLive() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            try store.transaction {
                try DevicePollPolicy().start(
                    DeviceAuthorization(
                        deviceCode: "d1", userCode: "CODE-1234", clientID: client.id, scopes: [],
                        createdAt: referenceTime, expiresAt: referenceTime.addingTimeInterval(600)), in: $0)
            }
            #expect(throws: StoreError.duplicate(field: "user_code")) {
                try store.transaction {
                    try DevicePollPolicy().start(
                        DeviceAuthorization(
                            deviceCode: "d2", userCode: "code1234", clientID: client.id, scopes: [],
                            createdAt: referenceTime.addingTimeInterval(10),
                            expiresAt: referenceTime.addingTimeInterval(610)), in: $0)
                }
            }
            // Once the first has expired, its user code may be handed out again.
            try store.transaction {
                try DevicePollPolicy().start(
                    DeviceAuthorization(
                        deviceCode: "d3", userCode: "code1234", clientID: client.id, scopes: [],
                        createdAt: referenceTime.addingTimeInterval(600),
                        expiresAt: referenceTime.addingTimeInterval(1200)), in: $0)
            }
            #expect(try store.deviceAuthorization(deviceCode: "d1") == nil)
            #expect(throws: StoreError.missingReference("user")) {
                try store.approveDeviceAuthorization(
                    userCode: "code1234", userID: "ghost", authTime: referenceTime,
                    now: referenceTime.addingTimeInterval(601))
            }
            #expect(
                try store.approveDeviceAuthorization(
                    userCode: "code1234", userID: user.id, authTime: referenceTime,
                    now: referenceTime.addingTimeInterval(601)))
        }
    }
}

struct AccountLinkTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func createGetListDelete() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let link = AccountLink(
                hostClientID: client.id, hostUserID: "host-42", platformUserID: user.id, createdAt: referenceTime)
            try store.insert(link)
            #expect(try store.accountLink(hostClientID: client.id, hostUserID: "host-42") == link)
            #expect(try store.accountLinks(platformUserID: user.id) == [link])
            // One platform account per host user, and one host user per platform account, per host app.
            let other = StoreFixtures.user("other@example.com")
            try store.insert(other)
            #expect(throws: StoreError.duplicate(field: "host_client_id, host_user_id")) {
                try store.insert(AccountLink(hostClientID: client.id, hostUserID: "host-42", platformUserID: other.id))
            }
            #expect(throws: StoreError.duplicate(field: "host_client_id, platform_user_id")) {
                try store.insert(AccountLink(hostClientID: client.id, hostUserID: "host-99", platformUserID: user.id))
            }
            #expect(throws: StoreError.missingReference("client or user")) {
                try store.insert(AccountLink(hostClientID: client.id, hostUserID: "host-43", platformUserID: "ghost"))
            }
            #expect(try store.deleteAccountLink(hostClientID: client.id, hostUserID: "host-42"))
            #expect(try store.accountLink(hostClientID: client.id, hostUserID: "host-42") == nil)
            #expect(try store.deleteAccountLink(hostClientID: client.id, hostUserID: "host-42") == false)
        }
    }
}

struct AuditLogTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func appendAndListNewestFirst() throws {
        try withStore { store throws in
            for index in 0..<5 {
                try store.append(
                    AuditEvent(
                        occurredAt: referenceTime, actor: "cli", action: "client.add", subject: "client-\(index)",
                        details: #"{"index": \#(index)}"#))
            }
            let recent = try store.recentAuditEvents(limit: 3)
            #expect(recent.map(\.subject) == ["client-4", "client-3", "client-2"])
            #expect(recent.first?.details == #"{"index": 4}"#)
            #expect(try store.recentAuditEvents(limit: -1).isEmpty)
        }
    }
}

/// The checks of this file, named as the tests they were.
enum TokenChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("RefreshTokenTests.mintedTokensNameTheirFamilyAndAreRandom") {
                RefreshTokenTests(open: $0).mintedTokensNameTheirFamilyAndAreRandom()
            },
            .init("RefreshTokenTests.rotationReplacesTheCurrentToken") {
                try RefreshTokenTests(open: $0).rotationReplacesTheCurrentToken()
            },
            .init("RefreshTokenTests.theTokenJustReplacedIsReportedWithItsTime") {
                try RefreshTokenTests(open: $0).theTokenJustReplacedIsReportedWithItsTime()
            },
            .init("RefreshTokenTests.supersedingReplacesTheUnusedCurrentToken") {
                try RefreshTokenTests(open: $0).supersedingReplacesTheUnusedCurrentToken()
            },
            .init("RefreshTokenTests.anOlderTokenIsReuseAndThenTheFamilyIsRevoked") {
                try RefreshTokenTests(open: $0).anOlderTokenIsReuseAndThenTheFamilyIsRevoked()
            },
            .init("RefreshTokenTests.concurrentRotationsOfOneTokenSucceedOnce") {
                try RefreshTokenTests(open: $0).concurrentRotationsOfOneTokenSucceedOnce()
            },
            .init("RefreshTokenTests.expiredAndUnknownTokensDoNotRotate") {
                try RefreshTokenTests(open: $0).expiredAndUnknownTokensDoNotRotate()
            },
            .init("RefreshTokenTests.familiesListAndRevokeByUserAndClient") {
                try RefreshTokenTests(open: $0).familiesListAndRevokeByUserAndClient()
            },
            .init("AccessTokenRevocationTests.revokeCheckAndPurge") {
                try AccessTokenRevocationTests(open: $0).revokeCheckAndPurge()
            },
            .init("DeviceAuthorizationTests.approveThenPollConsumesOnce") {
                try DeviceAuthorizationTests(open: $0).approveThenPollConsumesOnce()
            },
            .init("DeviceAuthorizationTests.denyAndExpiry") { try DeviceAuthorizationTests(open: $0).denyAndExpiry() },
            .init("DeviceAuthorizationTests.userCodeIsUniqueOnlyWhileLive") {
                try DeviceAuthorizationTests(open: $0).userCodeIsUniqueOnlyWhileLive()
            },
            .init("AccountLinkTests.createGetListDelete") { try AccountLinkTests(open: $0).createGetListDelete() },
            .init("AuditLogTests.appendAndListNewestFirst") { try AuditLogTests(open: $0).appendAndListNewestFirst() },
        ]
    }
}

/// The provider's refresh policy the checks run, with tokens that live a day.
private let refreshPolicy = RefreshTokenPolicy(tokenLifetime: 86_400, reuseGrace: 30)
