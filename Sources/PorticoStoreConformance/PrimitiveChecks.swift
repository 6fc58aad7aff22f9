import Foundation
import PorticoStore
import Testing

/// The primitives the provider's policies are built on, one by one: compare-and-swap on a
/// token hash, conditional updates that report the rows they changed, whole-second times.
struct PrimitiveChecks: ConformanceChecks {
    let open: StoreConformance.Opener

    private func family(in store: any Store) throws -> (RefreshFamily, [UInt8]) {
        let (user, client) = try StoreFixtures.userAndClient(in: store)
        let family = RefreshFamily(
            clientID: client.id, userID: user.id, scopes: ["openid"], authTime: referenceTime, createdAt: referenceTime)
        try store.insert(family, token: "first", expiresAt: referenceTime.addingTimeInterval(100))
        return (family, SecretHash.digest("first"))
    }

    func refreshRotationIsACompareAndSwapOnTheCurrentHash() throws {
        try withStore { store in
            let (family, first) = try family(in: store)
            let second = SecretHash.digest("second")
            let later = referenceTime.addingTimeInterval(10)
            let expiry = referenceTime.addingTimeInterval(200)
            try store.transaction { transaction throws in
                #expect(
                    try !transaction.swapRefreshToken(
                        familyID: family.id, from: second, to: first, issuedAt: later, expiresAt: expiry))
                #expect(
                    try transaction.swapRefreshToken(
                        familyID: family.id, from: first, to: second, issuedAt: later, expiresAt: expiry))
                // The same swap again changes nothing: the current hash is no longer `first`.
                #expect(
                    try !transaction.swapRefreshToken(
                        familyID: family.id, from: first, to: SecretHash.digest("third"), issuedAt: later,
                        expiresAt: expiry))
                #expect(
                    try !transaction.swapRefreshToken(
                        familyID: "no-such-family", from: second, to: first, issuedAt: later, expiresAt: expiry))
            }
            let state = try #require(try store.read { try $0.refreshTokenState(familyID: family.id) })
            #expect(state.family == family)
            #expect(state.currentTokenHash == second)
            #expect(state.previousTokenHash == first)
            #expect(state.rotatedAt == later)
            #expect(state.issuedAt == later)
            #expect(state.expiresAt == expiry)
        }
    }

    func replacingTheUnusedTokenKeepsTheOneReplaced() throws {
        try withStore { store in
            let (family, first) = try family(in: store)
            let second = SecretHash.digest("second")
            let third = SecretHash.digest("third")
            let expiry = referenceTime.addingTimeInterval(200)
            try store.transaction { transaction throws in
                // Nothing was replaced yet: there is no grace step to take.
                #expect(
                    try !transaction.replaceRefreshToken(
                        familyID: family.id, expected: first, with: third, issuedAt: referenceTime, expiresAt: expiry))
                #expect(
                    try transaction.swapRefreshToken(
                        familyID: family.id, from: first, to: second, issuedAt: referenceTime, expiresAt: expiry))
                #expect(
                    try !transaction.replaceRefreshToken(
                        familyID: family.id, expected: first, with: third, issuedAt: referenceTime, expiresAt: expiry))
                #expect(
                    try transaction.replaceRefreshToken(
                        familyID: family.id, expected: second, with: third,
                        issuedAt: referenceTime.addingTimeInterval(5), expiresAt: expiry))
            }
            let state = try #require(try store.read { try $0.refreshTokenState(familyID: family.id) })
            #expect(state.currentTokenHash == third)
            #expect(state.previousTokenHash == first)
            #expect(state.issuedAt == referenceTime.addingTimeInterval(5))
            #expect(state.rotatedAt == referenceTime)
        }
    }

    func aRevokedFamilyNeitherRotatesNorIsReplaced() throws {
        try withStore { store in
            let (family, first) = try family(in: store)
            let expiry = referenceTime.addingTimeInterval(200)
            #expect(try store.revokeRefreshFamily(id: family.id, now: referenceTime))
            #expect(try !store.revokeRefreshFamily(id: family.id, now: referenceTime), "revoked once only")
            try store.transaction { transaction throws in
                #expect(
                    try !transaction.swapRefreshToken(
                        familyID: family.id, from: first, to: SecretHash.digest("x"), issuedAt: referenceTime,
                        expiresAt: expiry))
                #expect(
                    try !transaction.replaceRefreshToken(
                        familyID: family.id, expected: first, with: SecretHash.digest("x"), issuedAt: referenceTime,
                        expiresAt: expiry))
            }
            #expect(try store.read { try $0.refreshTokenState(familyID: family.id) }?.currentTokenHash == first)
        }
    }

    func anApprovalIsConsumedOnce() throws {
        try withStore { store in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            try store.insert(
                DeviceAuthorization(
                    deviceCode: "device", userCode: "BCDFGHJK", clientID: client.id, scopes: ["openid"],
                    createdAt: referenceTime, expiresAt: referenceTime.addingTimeInterval(600)))
            let polled = referenceTime.addingTimeInterval(7.9)
            try store.transaction { transaction throws in
                #expect(try !transaction.consumeDeviceAuthorization(deviceCode: "device", now: polled), "pending")
                #expect(
                    try transaction.approveDeviceAuthorization(
                        userCode: "bcdf-ghjk", userID: user.id, authTime: referenceTime, now: referenceTime))
                #expect(
                    try !transaction.approveDeviceAuthorization(
                        userCode: "bcdf-ghjk", userID: user.id, authTime: referenceTime, now: referenceTime))
                #expect(try transaction.consumeDeviceAuthorization(deviceCode: "device", now: polled))
                #expect(try !transaction.consumeDeviceAuthorization(deviceCode: "device", now: polled))
                #expect(try !transaction.consumeDeviceAuthorization(deviceCode: "other", now: polled))
            }
            let stored = try #require(try store.deviceAuthorization(deviceCode: "device"))
            #expect(stored.status == .consumed)
            #expect(stored.lastPolledAt == referenceTime.addingTimeInterval(7), "whole seconds, rounded down")
        }
    }

    func aPollIsRecordedByCompareAndSwapOnTheLastPoll() throws {
        try withStore { store in
            let (_, client) = try StoreFixtures.userAndClient(in: store)
            try store.insert(
                DeviceAuthorization(
                    deviceCode: "device", userCode: "BCDFGHJK", clientID: client.id, scopes: ["openid"],
                    createdAt: referenceTime, expiresAt: referenceTime.addingTimeInterval(600)))
            let first = referenceTime.addingTimeInterval(1)
            try store.transaction { transaction throws in
                #expect(
                    try transaction.recordDevicePoll(deviceCode: "device", now: first, interval: 5, ifLastPolledAt: nil)
                )
                #expect(
                    try !transaction.recordDevicePoll(
                        deviceCode: "device", now: first, interval: 10, ifLastPolledAt: nil),
                    "another poll was recorded since")
                #expect(
                    try transaction.recordDevicePoll(
                        deviceCode: "device", now: referenceTime.addingTimeInterval(2), interval: 10,
                        ifLastPolledAt: first))
            }
            let stored = try #require(try store.deviceAuthorization(deviceCode: "device"))
            #expect(stored.interval == 10)
            #expect(stored.lastPolledAt == referenceTime.addingTimeInterval(2))
        }
    }

    func onlyAnExpiredHolderOfAUserCodeIsDeleted() throws {
        try withStore { store in
            let (_, client) = try StoreFixtures.userAndClient(in: store)
            try store.insert(
                DeviceAuthorization(
                    deviceCode: "device", userCode: "BCDFGHJK", clientID: client.id, scopes: ["openid"],
                    createdAt: referenceTime, expiresAt: referenceTime.addingTimeInterval(600)))
            let again = DeviceAuthorization(
                deviceCode: "again", userCode: "BCDFGHJK", clientID: client.id, scopes: ["openid"],
                createdAt: referenceTime.addingTimeInterval(600), expiresAt: referenceTime.addingTimeInterval(1200))
            #expect(throws: StoreError.duplicate(field: "user_code")) { try store.insert(again) }
            try store.transaction { transaction throws in
                #expect(
                    try !transaction.deleteDeviceAuthorization(
                        userCode: "BCDF-GHJK", expiredBy: referenceTime.addingTimeInterval(599)))
                #expect(
                    try transaction.deleteDeviceAuthorization(
                        userCode: "BCDF-GHJK", expiredBy: referenceTime.addingTimeInterval(600)))
            }
            try store.insert(again)
            #expect(try store.deviceAuthorization(deviceCode: "device") == nil)
        }
    }

    func savingAConsentReplacesItsScopesAndKeepsItsCreation() throws {
        try withStore { store in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            try store.transaction { transaction throws in
                try transaction.saveConsent(
                    userID: user.id, clientID: client.id, scopes: ["openid", "profile"], now: referenceTime)
                try transaction.saveConsent(
                    userID: user.id, clientID: client.id, scopes: ["openid"], now: referenceTime.addingTimeInterval(9.5)
                )
            }
            let consent = try #require(try store.consent(userID: user.id, clientID: client.id))
            #expect(consent.scopes == ["openid"])
            #expect(consent.createdAt == referenceTime)
            #expect(consent.updatedAt == referenceTime.addingTimeInterval(9))
        }
    }

    static var all: [StoreConformance.Check] {
        [
            .init("Primitives.refreshRotationIsACompareAndSwapOnTheCurrentHash") {
                try PrimitiveChecks(open: $0).refreshRotationIsACompareAndSwapOnTheCurrentHash()
            },
            .init("Primitives.replacingTheUnusedTokenKeepsTheOneReplaced") {
                try PrimitiveChecks(open: $0).replacingTheUnusedTokenKeepsTheOneReplaced()
            },
            .init("Primitives.aRevokedFamilyNeitherRotatesNorIsReplaced") {
                try PrimitiveChecks(open: $0).aRevokedFamilyNeitherRotatesNorIsReplaced()
            },
            .init("Primitives.anApprovalIsConsumedOnce") { try PrimitiveChecks(open: $0).anApprovalIsConsumedOnce() },
            .init("Primitives.aPollIsRecordedByCompareAndSwapOnTheLastPoll") {
                try PrimitiveChecks(open: $0).aPollIsRecordedByCompareAndSwapOnTheLastPoll()
            },
            .init("Primitives.onlyAnExpiredHolderOfAUserCodeIsDeleted") {
                try PrimitiveChecks(open: $0).onlyAnExpiredHolderOfAUserCodeIsDeleted()
            },
            .init("Primitives.savingAConsentReplacesItsScopesAndKeepsItsCreation") {
                try PrimitiveChecks(open: $0).savingAConsentReplacesItsScopesAndKeepsItsCreation()
            },
        ]
    }
}
