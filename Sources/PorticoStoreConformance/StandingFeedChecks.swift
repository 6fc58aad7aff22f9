import Foundation
import PorticoStore
import Testing

/// What a store that offers a ``StandingChangeFeed`` promises (a store without one, SQLite,
/// passes by offering nothing): every change that may alter a standing moves the generation,
/// before the call that made it returns when it was made through the same store, soon after
/// when another store (another node) made it; a change that releases nothing new (a sign-in
/// rehashing a password) does not.
struct StandingFeedChecks: ConformanceChecks {
    let open: StoreConformance.Opener

    func changesThatMayAlterAStandingMoveTheGeneration() throws {
        try withStore { store in
            guard let feed = store as? any StandingChangeFeed else { return }
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            feed.followStandingChanges()
            _ = try Self.live(feed)
            let issued = StoreFixtures.referenceTime
            // Nothing a resource endpoint releases: a sign-in's rehash writes these.
            var rehashed = user
            rehashed.updatedAt = user.updatedAt.addingTimeInterval(60)
            rehashed.passwordHash = "$argon2id$v=19$m=64,t=1,p=1$c29tZXNhbHQ$aGFzaA"
            let quiet = try Self.live(feed)
            try store.update(rehashed)
            #expect(feed.standingGeneration == quiet, "a new password hash moved the generation")
            func moves(_ what: String, _ change: () throws -> Void) throws {
                let before = try Self.live(feed)
                try change()
                #expect(feed.standingGeneration != before, "\(what) did not move the generation at once")
            }
            try moves("an access-token revocation") {
                try store.revokeAccessToken(id: "jti-1", expiresAt: issued.addingTimeInterval(3_600))
            }
            try moves("a grant revocation") {
                try store.transaction {
                    try $0.revokeGrant(
                        userID: user.id, clientID: client.id, at: issued, expiresAt: issued.addingTimeInterval(3_600))
                }
            }
            var changed = rehashed
            changed.isDisabled = true
            try moves("disabling the person") { try store.update(changed) }
            changed.name = "Another Name"
            try moves("renaming the person") { try store.update(changed) }
            try moves("removing the person") { _ = try store.deleteUser(id: user.id) }
        }
    }

    func anotherStoresChangesMoveItSoon() throws {
        try withStore { store in
            guard let feed = store as? any StandingChangeFeed else { return }
            feed.followStandingChanges()
            let other = try open()
            defer { other.close() }
            let before = try Self.live(feed)
            try other.revokeAccessToken(id: "jti-other", expiresAt: StoreFixtures.referenceTime)
            let deadline = Date(timeIntervalSinceNow: 10)
            while feed.standingGeneration == before && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            #expect(feed.standingGeneration != before, "another store's revocation never arrived")
        }
    }

    /// The generation once the feed listens (failing after a generous 10 s).
    private static func live(_ feed: any StandingChangeFeed) throws -> UInt64 {
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline {
            if let generation = feed.standingGeneration { return generation }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return try #require(feed.standingGeneration, "the feed never listened")
    }

    static var all: [StoreConformance.Check] {
        [
            .init("StandingFeedTests.changesThatMayAlterAStandingMoveTheGeneration") {
                try StandingFeedChecks(open: $0).changesThatMayAlterAStandingMoveTheGeneration()
            },
            .init("StandingFeedTests.anotherStoresChangesMoveItSoon") {
                try StandingFeedChecks(open: $0).anotherStoresChangesMoveItSoon()
            },
        ]
    }
}
