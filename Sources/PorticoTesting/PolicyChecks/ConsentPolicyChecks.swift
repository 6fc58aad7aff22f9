import Foundation
import PorticoServer
import PorticoStore
import PorticoStoreConformance
import Testing

/// Consent only grows (``ConsentPolicy``): the union of approvals, on a backend's consent rows.
/// Moved out of the store conformance suite (which needs no server); the name is the one the
/// check had there.
struct ConsentTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func grantMergesAndRevokeRemoves() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            #expect(try store.consent(userID: user.id, clientID: client.id) == nil)

            let first = try store.transaction {
                try ConsentPolicy().grant(
                    userID: user.id, clientID: client.id, scopes: ["openid", "profile"], in: $0, now: referenceTime)
            }
            let later = referenceTime.addingTimeInterval(100)
            let merged = try store.transaction {
                try ConsentPolicy().grant(
                    userID: user.id, clientID: client.id, scopes: ["profile", "postal_code"], in: $0, now: later)
            }
            #expect(merged.scopes == ["openid", "profile", "postal_code"])
            #expect(merged.createdAt == first.createdAt)
            #expect(merged.updatedAt == later)
            let stored = try #require(try store.consent(userID: user.id, clientID: client.id))
            #expect(stored == merged)
            #expect(stored.covers(["openid", "postal_code"]))
            #expect(!stored.covers(["email"]))
            #expect(try store.consents(userID: user.id) == [merged])

            #expect(try store.revokeConsent(userID: user.id, clientID: client.id))
            #expect(try store.consent(userID: user.id, clientID: client.id) == nil)
            #expect(try store.revokeConsent(userID: user.id, clientID: client.id) == false)
        }
    }
}

/// The instant the fixtures are dated at.
private let referenceTime = StoreFixtures.referenceTime

/// The checks of this file, named as they were in the store conformance suite.
enum ConsentPolicyChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("ConsentTests.grantMergesAndRevokeRemoves") {
                try ConsentTests(open: $0).grantMergesAndRevokeRemoves()
            }
        ]
    }
}
