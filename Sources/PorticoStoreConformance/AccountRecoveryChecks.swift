import Foundation
import PorticoStore
import Testing

struct AccountRecoveryStoreTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func aResetTokenIsStoredHashedAndRedeemsOnce() throws {
        try withStore { store throws in
            let (user, _) = try StoreFixtures.userAndClient(in: store)
            let reset = PasswordReset(
                token: "mailed-token", userID: user.id, createdAt: referenceTime,
                expiresAt: referenceTime.addingTimeInterval(1800))
            try store.transaction { try $0.insert(reset) }
            #expect(reset.hashedToken != "mailed-token")
            #expect(try store.read { try $0.passwordReset(token: "mailed-token") }?.userID == user.id)
            #expect(try store.read { try $0.passwordReset(token: "other") } == nil)

            let first = try store.transaction {
                try $0.redeemPasswordReset(token: "mailed-token", now: referenceTime.addingTimeInterval(60))
            }
            guard case .redeemed(let redeemed) = first else {
                Issue.record("expected a redemption, got \(first)")
                return
            }
            #expect(redeemed.userID == user.id)
            #expect(redeemed.usedAt != nil)
            let second = try store.transaction {
                try $0.redeemPasswordReset(token: "mailed-token", now: referenceTime.addingTimeInterval(61))
            }
            #expect(second == .alreadyUsed)
            #expect(
                try store.transaction { try $0.redeemPasswordReset(token: "nope", now: referenceTime) } == .notFound)
        }
    }

    func anExpiredResetTokenIsRefusedAndPurged() throws {
        try withStore { store throws in
            let (user, _) = try StoreFixtures.userAndClient(in: store)
            let expiry = referenceTime.addingTimeInterval(1800)
            try store.transaction { transaction in
                try transaction.insert(
                    PasswordReset(token: "old", userID: user.id, createdAt: referenceTime, expiresAt: expiry))
                try transaction.insert(
                    PasswordReset(
                        token: "new", userID: user.id, createdAt: referenceTime,
                        expiresAt: expiry.addingTimeInterval(600)))
            }
            #expect(try store.transaction { try $0.redeemPasswordReset(token: "old", now: expiry) } == .expired)
            let report = try store.purgeExpired(now: expiry)
            #expect(report.passwordResets == 1)
            #expect(try store.read { try $0.passwordReset(token: "new") } != nil)
            #expect(try store.transaction { try $0.deletePasswordResets(userID: user.id) } == 1)
            #expect(try store.read { try $0.passwordReset(token: "new") } == nil)
        }
    }

    func throttleAttemptsCountPerKeyWithinTheirWindow() throws {
        try withStore { store throws in
            let window: TimeInterval = 900
            let reserved = ThrottleAttempt(
                key: "sign-in:address:127.0.0.1", attemptedAt: referenceTime.addingTimeInterval(30),
                expiresAt: referenceTime.addingTimeInterval(30 + window))
            try store.transaction { transaction in
                for offset in [0.0, 10, 20] {
                    try transaction.insert(
                        ThrottleAttempt(
                            key: "sign-in:account:ann@example.com",
                            attemptedAt: referenceTime.addingTimeInterval(offset),
                            expiresAt: referenceTime.addingTimeInterval(offset + window)))
                }
                try transaction.insert(reserved)
            }
            let now = referenceTime.addingTimeInterval(window + 5)
            let counted = try store.read {
                try $0.throttleAttempts(key: "sign-in:account:ann@example.com", since: now.addingTimeInterval(-window))
            }
            #expect(counted == [referenceTime.addingTimeInterval(10), referenceTime.addingTimeInterval(20)])
            #expect(
                try store.read { try $0.throttleAttempts(key: "sign-in:account:bob@example.com", since: referenceTime) }
                    .isEmpty)
            #expect(try store.transaction { try $0.deleteThrottleAttempt(id: reserved.id) })
            #expect(
                try store.read { try $0.throttleAttempts(key: reserved.key, since: referenceTime) }.isEmpty)

            #expect(try store.purgeExpired(now: now).throttleAttempts == 1)
            #expect(
                try store.transaction { try $0.deleteThrottleAttempts(key: "sign-in:account:ann@example.com") } == 2)
        }
    }
}

/// The checks of this file, named as the tests they were.
enum AccountRecoveryChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("AccountRecoveryStoreTests.aResetTokenIsStoredHashedAndRedeemsOnce") {
                try AccountRecoveryStoreTests(open: $0).aResetTokenIsStoredHashedAndRedeemsOnce()
            },
            .init("AccountRecoveryStoreTests.anExpiredResetTokenIsRefusedAndPurged") {
                try AccountRecoveryStoreTests(open: $0).anExpiredResetTokenIsRefusedAndPurged()
            },
            .init("AccountRecoveryStoreTests.throttleAttemptsCountPerKeyWithinTheirWindow") {
                try AccountRecoveryStoreTests(open: $0).throttleAttemptsCountPerKeyWithinTheirWindow()
            },
        ]
    }
}
