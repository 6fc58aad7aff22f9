import Foundation
import PorticoStore
import Testing

/// Bulk inserts store what the single inserts store, across the backends' statement limits,
/// and a duplicate fails the whole call.
struct BulkLoadChecks: ConformanceChecks {
    let open: StoreConformance.Opener

    func bulkInsertsStoreWhatSingleInsertsStore() throws {
        try withStore { store in
            let (_, client) = try StoreFixtures.userAndClient(in: store)
            // More than one multi-row statement's worth, so the chunking is exercised.
            var users = (0..<1_234).map { StoreFixtures.user("bulk\($0)@example.com", name: "Bulk \($0)") }
            users[1_233].isEmailVerified = true
            try store.transaction { try $0.insert(users: users) }
            let last = try #require(try store.user(email: "BULK1233@example.com"))
            #expect(last.id == users[1_233].id)
            #expect(last.name == "Bulk 1233")
            #expect(last.passwordHash == users[1_233].passwordHash)
            #expect(last.isEmailVerified)
            #expect(try store.user(email: "bulk0@example.com")?.isEmailVerified == false)
            let expiry = StoreFixtures.referenceTime.addingTimeInterval(3_600)
            let starts = (0..<1_001).map { index in
                let family = RefreshFamily(
                    clientID: client.id, userID: users[index].id, scopes: ["openid", "profile"],
                    authTime: StoreFixtures.referenceTime, createdAt: StoreFixtures.referenceTime)
                return RefreshFamilyStart(
                    family: family, token: RefreshToken.mint(familyID: family.id), expiresAt: expiry)
            }
            try store.transaction { try $0.insert(families: starts) }
            let family = try #require(try store.refreshFamily(id: starts[1_000].family.id))
            #expect(family.userID == users[1_000].id)
            #expect(family.scopes == ["openid", "profile"])
            // The family's current token is the one it was loaded with (what the provider's
            // lookup of that token finds).
            let state = try store.read { try $0.refreshTokenState(familyID: family.id) }
            #expect(state?.currentTokenHash == SecretHash.digest(starts[1_000].token))
            #expect(state?.expiresAt == expiry)
            try store.transaction { try $0.insert(users: []) }
            try store.transaction { try $0.insert(families: []) }
        }
    }

    func aDuplicateFailsTheWholeBulkInsert() throws {
        try withStore { store in
            let users = [StoreFixtures.user("one@example.com"), StoreFixtures.user("ONE@example.com")]
            #expect(throws: StoreError.self) {
                try store.transaction { transaction in try transaction.insert(users: users) }
            }
            let stored = try store.user(email: "one@example.com")
            #expect(stored == nil)
        }
    }

    static var all: [StoreConformance.Check] {
        [
            .init("BulkLoadTests.bulkInsertsStoreWhatSingleInsertsStore") {
                try BulkLoadChecks(open: $0).bulkInsertsStoreWhatSingleInsertsStore()
            },
            .init("BulkLoadTests.aDuplicateFailsTheWholeBulkInsert") {
                try BulkLoadChecks(open: $0).aDuplicateFailsTheWholeBulkInsert()
            },
        ]
    }
}
