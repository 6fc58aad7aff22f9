import Foundation
import PorticoStore
import Testing

/// What migration 9 (security) stores: rotated keys' `signs_from`, clients' JWKS and
/// introspection flag, and seen client-assertion `jti`s.
struct SecurityStoreTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func aWaitingKeyKeepsWhenItSignsFrom() throws {
        try withStore { store throws in
            let current = StoredSigningKey(
                algorithm: "ES256", privateKeyPEM: "current", isCurrent: true, createdAt: referenceTime)
            let waiting = StoredSigningKey(
                algorithm: "ES256", privateKeyPEM: "waiting", createdAt: referenceTime.addingTimeInterval(1),
                signsFrom: referenceTime.addingTimeInterval(605))
            try store.transaction { transaction in
                try transaction.insert(current)
                try transaction.insert(waiting)
            }
            #expect(try store.signingKey(id: waiting.id) == waiting)
            #expect(try store.signingKey(id: current.id)?.signsFrom == nil)
            #expect(try store.currentSigningKey(algorithm: "ES256")?.id == current.id)
        }
    }

    /// A `jwks_uri` (schema 23) is kept, changed and cleared by insert and update; a client with
    /// both `jwks` and a `jwks_uri` is refused.
    func aClientKeepsItsKeySetURI() throws {
        try withStore { store throws in
            var client = Client(name: "Backend", type: .confidential, redirectURIs: [])
            client.jwksURI = "https://backend.example/jwks.json"
            try store.transaction { try $0.insert(client) }
            #expect(try store.client(id: client.id)?.jwksURI == "https://backend.example/jwks.json")
            #expect(try store.client(id: client.id)?.secretHash == nil)
            client.jwksURI = "https://backend.example/keys"
            try store.transaction { try $0.update(client) }
            #expect(try store.client(id: client.id)?.jwksURI == "https://backend.example/keys")
            client.jwks = #"{"keys":[]}"#
            #expect(throws: StoreError.self) { try store.transaction { try $0.update(client) } }
            client.jwksURI = nil
            try store.transaction { try $0.update(client) }
            #expect(try store.client(id: client.id)?.jwksURI == nil)
            #expect(try store.client(id: client.id)?.jwks == #"{"keys":[]}"#)
        }
    }

    func aClientKeepsItsKeySetAndIntrospectionFlag() throws {
        try withStore { store throws in
            var client = Client(
                name: "Resource server", type: .confidential, redirectURIs: ["https://rs.example/cb"])
            client.jwks = #"{"keys":[]}"#
            client.mayIntrospect = true
            try store.transaction { try $0.insert(client) }
            let stored = try #require(try store.client(id: client.id))
            #expect(stored.jwks == client.jwks)
            #expect(stored.mayIntrospect)
            #expect(stored.secretHash == nil)
            client.mayIntrospect = false
            client.jwks = nil
            client.setSecret("now a secret")
            try store.transaction { try $0.update(client) }
            let updated = try #require(try store.client(id: client.id))
            #expect(!updated.mayIntrospect)
            #expect(updated.jwks == nil)
            // Neither a secret nor keys: a confidential client could never authenticate.
            client.setSecret(nil)
            #expect(throws: StoreError.self) { try store.transaction { try $0.update(client) } }
        }
    }

    func anAssertionJTIIsAcceptedOnceUntilItExpires() throws {
        try withStore { store throws in
            let (_, client) = try StoreFixtures.userAndClient(in: store)
            let other = StoreFixtures.client()
            try store.transaction { try $0.insert(other) }
            let expiry = referenceTime.addingTimeInterval(120)
            func record(_ clientID: String, _ jti: String, now: Date) throws -> Bool {
                try store.transaction {
                    try $0.recordClientAssertion(clientID: clientID, jti: jti, expiresAt: expiry, now: now)
                }
            }
            #expect(try record(client.id, "j1", now: referenceTime))
            #expect(!(try record(client.id, "j1", now: referenceTime.addingTimeInterval(60))))
            // Another client's jti space is its own.
            #expect(try record(other.id, "j1", now: referenceTime))
            #expect(try record(client.id, "j2", now: referenceTime))
            // Once expired the record is dropped (the assertion itself is refused by its exp).
            #expect(try record(client.id, "j1", now: expiry))
            #expect(throws: StoreError.self) { try record("no-such-client", "j3", now: referenceTime) }
        }
    }

    func racingAssertionsWithOneJTIAuthenticateOnce() throws {
        let (_, client) = try withStore { try StoreFixtures.userAndClient(in: $0) }
        let first = try open()
        defer { first.close() }
        let second = try open()
        defer { second.close() }
        let stores = [first, second]
        for round in 0..<8 {
            let outcomes = LockedList<Result<Bool, any Error>>()
            let start = StartLine(runners: 2)
            let finished = runOnThreads(2) { index in
                start.wait()
                outcomes.append(
                    Result {
                        try stores[index].transaction {
                            try $0.recordClientAssertion(
                                clientID: client.id, jti: "raced-\(round)",
                                expiresAt: referenceTime.addingTimeInterval(3600), now: referenceTime)
                        }
                    })
            }
            #expect(finished, "a racer did not finish")
            let accepted = outcomes.all.compactMap { try? $0.get() }
            #expect(accepted.count == 2, "a racer failed: \(outcomes.all)")
            #expect(accepted.filter { $0 }.count == 1)
        }
    }
}

/// The checks of this file, named as the tests they were.
enum SecurityChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("SecurityStoreTests.aWaitingKeyKeepsWhenItSignsFrom") {
                try SecurityStoreTests(open: $0).aWaitingKeyKeepsWhenItSignsFrom()
            },
            .init("SecurityStoreTests.aClientKeepsItsKeySetAndIntrospectionFlag") {
                try SecurityStoreTests(open: $0).aClientKeepsItsKeySetAndIntrospectionFlag()
            },
            .init("SecurityStoreTests.aClientKeepsItsKeySetURI") {
                try SecurityStoreTests(open: $0).aClientKeepsItsKeySetURI()
            },
            .init("SecurityStoreTests.anAssertionJTIIsAcceptedOnceUntilItExpires") {
                try SecurityStoreTests(open: $0).anAssertionJTIIsAcceptedOnceUntilItExpires()
            },
            .init("SecurityStoreTests.racingAssertionsWithOneJTIAuthenticateOnce") {
                try SecurityStoreTests(open: $0).racingAssertionsWithOneJTIAuthenticateOnce()
            },
        ]
    }
}
