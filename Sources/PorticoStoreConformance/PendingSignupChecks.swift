import Foundation
import PorticoStore
import Testing

/// Sign-ups waiting for their mailed link, and the `email_verified` flag of accounts, on every
/// backend: stored by the token's hash only, one per address (a newer replaces the older in
/// any letter case), taken away once, refused when expired, purged, and raced on two connections.
struct PendingSignupStoreTests: ConformanceChecks {
    let open: StoreConformance.Opener

    private func signup(_ token: String, email: String = "zoe@example.com", expiresIn seconds: TimeInterval = 86_400)
        -> PendingSignup
    {
        PendingSignup(
            token: token, email: email, name: "Zoe", postalCode: "75001", passwordHash: "$argon2id$stand-in",
            createdAt: referenceTime, expiresAt: referenceTime.addingTimeInterval(seconds))
    }

    func aPendingSignupIsStoredHashedAndRedeemsOnce() throws {
        try withStore { store throws in
            let pending = signup("mailed-token")
            try store.transaction { try $0.savePendingSignup(pending) }
            #expect(pending.hashedToken != "mailed-token")
            #expect(try store.read { try $0.pendingSignup(token: "mailed-token") } == pending)
            #expect(try store.read { try $0.pendingSignup(token: "other") } == nil)

            let first = try store.transaction {
                try $0.redeemPendingSignup(token: "mailed-token", now: referenceTime.addingTimeInterval(60))
            }
            #expect(first == .redeemed(pending))
            let second = try store.transaction {
                try $0.redeemPendingSignup(token: "mailed-token", now: referenceTime.addingTimeInterval(61))
            }
            #expect(second == .notFound)
            #expect(try store.read { try $0.pendingSignup(token: "mailed-token") } == nil)
            #expect(
                try store.transaction { try $0.redeemPendingSignup(token: "nope", now: referenceTime) } == .notFound)
        }
    }

    func aNewerPendingSignupReplacesTheOlderInAnyLetterCase() throws {
        try withStore { store throws in
            let other = signup("other", email: "yan@example.com")
            try store.transaction { transaction in
                try transaction.savePendingSignup(signup("older", email: "Zoe@Example.com"))
                try transaction.savePendingSignup(other)
            }
            let newer = signup("newer", email: "zoe@EXAMPLE.com")
            try store.transaction { try $0.savePendingSignup(newer) }
            #expect(try store.read { try $0.pendingSignup(token: "older") } == nil)
            #expect(try store.read { try $0.pendingSignup(token: "newer") } == newer)
            #expect(try store.read { try $0.pendingSignup(token: "other") } == other)
            #expect(
                try store.transaction { try $0.redeemPendingSignup(token: "older", now: referenceTime) } == .notFound)
        }
    }

    func anExpiredPendingSignupIsRefusedAndPurged() throws {
        try withStore { store throws in
            let expiry = referenceTime.addingTimeInterval(86_400)
            try store.transaction { transaction in
                try transaction.savePendingSignup(signup("old", email: "a@example.com"))
                try transaction.savePendingSignup(signup("stale", email: "b@example.com"))
                try transaction.savePendingSignup(signup("live", email: "c@example.com", expiresIn: 86_400 + 600))
            }
            // Expired means at or past the expiry, in whole seconds.
            #expect(
                try store.read { try $0.pendingSignup(token: "old") } != nil
                    && (try store.transaction { try $0.redeemPendingSignup(token: "old", now: expiry) }) == .expired)
            #expect(try store.read { try $0.pendingSignup(token: "old") } == nil)
            #expect(try store.purgeExpired(now: expiry.addingTimeInterval(-1)).pendingSignups == 0)
            #expect(try store.purgeExpired(now: expiry).pendingSignups == 1)
            #expect(try store.read { try $0.pendingSignup(token: "stale") } == nil)
            #expect(try store.read { try $0.pendingSignup(token: "live") } != nil)
        }
    }

    func emailVerifiedIsStoredAndUpdated() throws {
        try withStore { store throws in
            let unverified = StoreFixtures.user("una@example.com")
            var verified = StoreFixtures.user("vera@example.com")
            verified.isEmailVerified = true
            #expect(!unverified.isEmailVerified)
            try store.transaction { transaction in
                try transaction.insert(unverified)
                try transaction.insert(verified)
            }
            #expect(try store.user(id: unverified.id)?.isEmailVerified == false)
            #expect(try store.user(email: "VERA@example.com")?.isEmailVerified == true)
            var changed = unverified
            changed.isEmailVerified = true
            try store.transaction { try $0.update(changed) }
            #expect(try store.user(id: unverified.id)?.isEmailVerified == true)
            verified.isEmailVerified = false
            try store.transaction { try $0.update(verified) }
            #expect(try store.read { try $0.users(limit: 10) }.first { $0.id == verified.id }?.isEmailVerified == false)
        }
    }

    func twoRedemptionsOfOneLinkOneWins() throws {
        let racing = RaceChecks(open: open)
        let rounds = try racing.race(
            setUp: { store, round in
                try store.transaction {
                    try $0.savePendingSignup(signup("race-\(round)", email: "r\(round)@example.com"))
                }
            },
            { store, round in
                try store.transaction { try $0.redeemPendingSignup(token: "race-\(round)", now: referenceTime) }
            })
        for outcomes in rounds {
            #expect(racing.wins(outcomes) { if case .redeemed = $0 { true } else { false } } == 1)
            #expect(racing.wins(outcomes) { $0 == .notFound } == 1)
        }
    }

    func twoSignupsForOneAddressLeaveOne() throws {
        let racing = RaceChecks(open: open)
        let rounds = try racing.race(
            setUp: { _, _ in },
            { store, round in
                let token = "address-\(round)-\(UUID().uuidString)"
                try store.transaction { try $0.savePendingSignup(signup(token, email: "same\(round)@example.com")) }
                return token
            })
        for (round, outcomes) in rounds.enumerated() {
            #expect(racing.wins(outcomes) { _ in true } == 2, "round \(round): both saves succeed")
            let tokens = outcomes.compactMap { try? $0.get() }
            let left = try withStore { store in
                try tokens.filter { token in try store.read { try $0.pendingSignup(token: token) } != nil }
            }
            #expect(left.count == 1, "round \(round)")
        }
    }
}

/// The checks of this file, named as the tests they are.
enum PendingSignupChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("PendingSignupStoreTests.aPendingSignupIsStoredHashedAndRedeemsOnce") {
                try PendingSignupStoreTests(open: $0).aPendingSignupIsStoredHashedAndRedeemsOnce()
            },
            .init("PendingSignupStoreTests.aNewerPendingSignupReplacesTheOlderInAnyLetterCase") {
                try PendingSignupStoreTests(open: $0).aNewerPendingSignupReplacesTheOlderInAnyLetterCase()
            },
            .init("PendingSignupStoreTests.anExpiredPendingSignupIsRefusedAndPurged") {
                try PendingSignupStoreTests(open: $0).anExpiredPendingSignupIsRefusedAndPurged()
            },
            .init("PendingSignupStoreTests.emailVerifiedIsStoredAndUpdated") {
                try PendingSignupStoreTests(open: $0).emailVerifiedIsStoredAndUpdated()
            },
            .init("PendingSignupStoreTests.twoRedemptionsOfOneLinkOneWins") {
                try PendingSignupStoreTests(open: $0).twoRedemptionsOfOneLinkOneWins()
            },
            .init("PendingSignupStoreTests.twoSignupsForOneAddressLeaveOne") {
                try PendingSignupStoreTests(open: $0).twoSignupsForOneAddressLeaveOne()
            },
        ]
    }
}
