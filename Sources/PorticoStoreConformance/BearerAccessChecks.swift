import Foundation
import PorticoStore
import Testing

/// A bearer token's standing and its user in one read, also through ``Store/readOne(_:)``: the
/// same answers as the separate revocation lookup and user read, on every backend.
struct BearerAccessChecks: ConformanceChecks {
    let open: StoreConformance.Opener

    func theStandingAgreesWithTheRevocationListsAndTheUser() throws {
        try withStore { store in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let issued = StoreFixtures.referenceTime
            func standing(_ id: String, userID: String = user.id, issuedAt: Date = issued) throws -> (Bool, UserRecord?)
            {
                let read = try store.readOne {
                    try $0.accessTokenStanding(id: id, userID: userID, clientID: client.id, issuedAt: issuedAt)
                }
                let apart = try store.read {
                    try $0.isAccessTokenRevoked(id: id, userID: userID, clientID: client.id, issuedAt: issuedAt)
                }
                #expect(read.isRevoked == apart, "\(id): one read and the lookup disagree")
                return (read.isRevoked, read.user)
            }
            let fresh = try standing("jti-fresh")
            #expect(!fresh.0)
            #expect(fresh.1?.id == user.id)
            // Unknown person: not revoked, no user.
            let nobody = try standing("jti-nobody", userID: "no-such-user")
            #expect(!nobody.0)
            #expect(nobody.1 == nil)
            // The token itself revoked.
            try store.revokeAccessToken(id: "jti-revoked", expiresAt: issued.addingTimeInterval(3_600))
            let revoked = try standing("jti-revoked")
            #expect(revoked.0)
            #expect(revoked.1?.id == user.id)
            // The app removed at or after issue revokes; before it does not.
            try store.transaction {
                try $0.revokeGrant(
                    userID: user.id, clientID: client.id, at: issued.addingTimeInterval(60),
                    expiresAt: issued.addingTimeInterval(7_200))
            }
            #expect(try standing("jti-old", issuedAt: issued).0)
            #expect(try standing("jti-at", issuedAt: issued.addingTimeInterval(60)).0)
            #expect(try !standing("jti-new", issuedAt: issued.addingTimeInterval(120)).0)
            // A disabled person is returned as such (the caller refuses them).
            var disabled = user
            disabled.isDisabled = true
            try store.update(disabled)
            #expect(try standing("jti-new", issuedAt: issued.addingTimeInterval(120)).1?.isDisabled == true)
        }
    }

    /// Removals are whole seconds: one in the second of an earlier one (or before it) is
    /// recorded one second past it, so that it still refuses a token stamped after the earlier
    /// one; a later one is recorded as it is.
    func aRemovalInTheSecondOfAnEarlierOneMovesPastIt() throws {
        try withStore { store in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let second = StoredTime.stored(StoreFixtures.referenceTime)
            func remove(at time: Date) throws {
                try store.transaction {
                    try $0.revokeGrant(
                        userID: user.id, clientID: client.id, at: time, expiresAt: second.addingTimeInterval(7_200))
                }
            }
            func recorded() throws -> Date? {
                try store.read { try $0.grantRevocationTime(userID: user.id, clientID: client.id) }
            }
            #expect(try recorded() == nil)
            try remove(at: second)
            #expect(try recorded() == second)
            #expect(try store.read { try $0.grantRevocationTime(userID: user.id, clientID: "other") } == nil)
            // A token stamped after that removal lives, until a second removal in the same second.
            let stamped = second.addingTimeInterval(1)
            #expect(
                try !store.read {
                    try $0.isAccessTokenRevoked(id: "t", userID: user.id, clientID: client.id, issuedAt: stamped)
                })
            try remove(at: second.addingTimeInterval(0.5))
            #expect(try recorded() == stamped)
            #expect(
                try store.read {
                    try $0.isAccessTokenRevoked(id: "t", userID: user.id, clientID: client.id, issuedAt: stamped)
                })
            try remove(at: second)
            #expect(try recorded() == second.addingTimeInterval(2))
            try remove(at: second.addingTimeInterval(60))
            #expect(try recorded() == second.addingTimeInterval(60))
        }
    }

    func readOneRefusesWrites() throws {
        try withStore { store in
            let user = StoreFixtures.user("w@example.com")
            #expect(throws: StoreError.self) { try store.readOne { transaction in try transaction.insert(user) } }
            let stored = try store.user(email: "w@example.com")
            #expect(stored == nil)
        }
    }

    static var all: [StoreConformance.Check] {
        [
            .init("BearerAccessTests.theStandingAgreesWithTheRevocationListsAndTheUser") {
                try BearerAccessChecks(open: $0).theStandingAgreesWithTheRevocationListsAndTheUser()
            },
            .init("BearerAccessTests.aRemovalInTheSecondOfAnEarlierOneMovesPastIt") {
                try BearerAccessChecks(open: $0).aRemovalInTheSecondOfAnEarlierOneMovesPastIt()
            },
            .init("BearerAccessTests.readOneRefusesWrites") {
                try BearerAccessChecks(open: $0).readOneRefusesWrites()
            },
        ]
    }
}
