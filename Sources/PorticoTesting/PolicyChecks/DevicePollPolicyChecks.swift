import Foundation
import PorticoServer
import PorticoStore
import PorticoStoreConformance
import Testing

/// RFC 8628's rules (``DevicePollPolicy``) on a backend's conditional updates: polls, `slow_down`,
/// consumption once, user codes given back once expired, and polls racing. Moved out of the store
/// conformance suite (which needs no server); the names are the ones the checks had there.
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

/// Polls of one approved device code racing on two connections.
struct DevicePollRaceTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func twoPollsOfOneApprovedDeviceCodeOneWins() throws {
        let (user, client) = try withStore { try StoreFixtures.userAndClient(in: $0) }
        let rounds = try RaceChecks(open: open).race(
            setUp: { store, round in
                let userCode = "RACE\(round)XYZ"
                try store.insert(
                    DeviceAuthorization(
                        deviceCode: "device-\(round)", userCode: userCode, clientID: client.id, scopes: ["openid"],
                        createdAt: referenceTime, expiresAt: referenceTime.addingTimeInterval(600)))
                #expect(
                    try store.approveDeviceAuthorization(
                        userCode: userCode, userID: user.id, authTime: referenceTime, now: referenceTime))
            },
            { store, round in
                try store.transaction {
                    try DevicePollPolicy().poll(
                        deviceCode: "device-\(round)", in: $0, now: referenceTime.addingTimeInterval(10))
                }
            })
        for outcomes in rounds {
            #expect(outcomes.count == 2)
            #expect(RaceChecks(open: open).wins(outcomes) { if case .approved = $0 { true } else { false } } == 1)
        }
    }
}

/// The instant the fixtures are dated at.
private let referenceTime = StoreFixtures.referenceTime

/// The checks of this file, named as they were in the store conformance suite.
enum DevicePollPolicyChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("DeviceAuthorizationTests.approveThenPollConsumesOnce") {
                try DeviceAuthorizationTests(open: $0).approveThenPollConsumesOnce()
            },
            .init("DeviceAuthorizationTests.denyAndExpiry") { try DeviceAuthorizationTests(open: $0).denyAndExpiry() },
            .init("DeviceAuthorizationTests.userCodeIsUniqueOnlyWhileLive") {
                try DeviceAuthorizationTests(open: $0).userCodeIsUniqueOnlyWhileLive()
            },
            .init("Races.twoPollsOfOneApprovedDeviceCodeOneWins") {
                try DevicePollRaceTests(open: $0).twoPollsOfOneApprovedDeviceCodeOneWins()
            },
        ]
    }
}
