import Foundation
import PorticoStore
import Testing

/// The developer console's storage (``DeveloperStorage``) on every backend: terms accepted
/// once, console apps listed for their owner and co-developers only, operators, and a secret
/// rotation that keeps the previous hash until its expiry (and refuses a client without one).
struct DeveloperStoreTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func appsTermsAndOperators() throws {
        try withStore { store throws in
            let (ann, client) = try StoreFixtures.userAndClient(in: store)
            let bob = StoreFixtures.user("bob@example.com", name: "Bob")
            try store.insert(bob)
            #expect(try store.read { try $0.developerTermsAcceptedAt(userID: ann.id) } == nil)
            try store.transaction { try $0.acceptDeveloperTerms(userID: ann.id, at: referenceTime) }
            try store.transaction { try $0.acceptDeveloperTerms(userID: ann.id, at: referenceTime + 60) }
            #expect(try store.read { try $0.developerTermsAcceptedAt(userID: ann.id) } == referenceTime)

            try store.transaction {
                try $0.insertDeveloperApp(
                    clientID: client.id, ownerID: ann.id, webOrigins: ["https://app.example"], createdAt: referenceTime)
            }
            #expect(try store.read { try $0.developerApp(clientID: client.id, userID: ann.id) }?.role == .owner)
            #expect(try store.read { try $0.developerApp(clientID: client.id, userID: bob.id) } == nil)
            #expect(try store.read { try $0.developerApps(userID: bob.id) }.isEmpty)
            try store.transaction {
                try $0.setDeveloperCollaborator(
                    clientID: client.id, userID: bob.id, role: .developer, at: referenceTime)
            }
            let bobs = try store.read { try $0.developerApps(userID: bob.id) }
            #expect(bobs.map(\.clientID) == [client.id])
            #expect(bobs.first?.role == .developer)
            #expect(bobs.first?.webOrigins == ["https://app.example"])
            #expect(try store.read { try $0.developerApps(userID: ann.id) }.first?.role == .owner)
            #expect(try store.writeOne { try $0.removeDeveloperCollaborator(clientID: client.id, userID: bob.id) })
            #expect(try !store.writeOne { try $0.removeDeveloperCollaborator(clientID: client.id, userID: bob.id) })
            #expect(try store.read { try $0.allDeveloperApps() }.map(\.ownerID) == [ann.id])

            #expect(try !store.read { try $0.isOperator(userID: bob.id) })
            #expect(try store.writeOne { try $0.setOperator(userID: bob.id, on: true, at: referenceTime) })
            #expect(try !store.writeOne { try $0.setOperator(userID: bob.id, on: true, at: referenceTime) })
            #expect(try store.read { try $0.isOperator(userID: bob.id) })
            #expect(try store.writeOne { try $0.setOperator(userID: bob.id, on: false, at: referenceTime) })
            #expect(try !store.read { try $0.isOperator(userID: bob.id) })

            // Removing the client removes its console records with it.
            #expect(try store.deleteClient(id: client.id))
            #expect(try store.read { try $0.developerApps(userID: ann.id) }.isEmpty)
        }
    }

    /// The web origins of a client (migration 22): the console's and the operator's, in that
    /// order and without repeats, replaced as a whole, and gone with the client.
    func webOriginsOfAClient() throws {
        try withStore { store throws in
            let (ann, client) = try StoreFixtures.userAndClient(in: store)
            #expect(try store.read { try $0.webOrigins(clientID: client.id) }.isEmpty)
            try store.transaction {
                try $0.setClientWebOrigins(
                    clientID: client.id, webOrigins: ["https://shop.example", "http://localhost:5173"])
            }
            #expect(
                try store.read { try $0.webOrigins(clientID: client.id) } == [
                    "https://shop.example", "http://localhost:5173",
                ])
            try store.transaction {
                try $0.insertDeveloperApp(
                    clientID: client.id, ownerID: ann.id, webOrigins: ["https://app.example", "https://shop.example"],
                    createdAt: referenceTime)
            }
            #expect(
                try store.read { try $0.webOrigins(clientID: client.id) } == [
                    "https://app.example", "https://shop.example", "http://localhost:5173",
                ])
            try store.transaction { try $0.setClientWebOrigins(clientID: client.id, webOrigins: []) }
            #expect(
                try store.read { try $0.webOrigins(clientID: client.id) } == [
                    "https://app.example", "https://shop.example",
                ])
            #expect(throws: StoreError.self) {
                try store.transaction {
                    try $0.setClientWebOrigins(clientID: "nobody", webOrigins: ["https://x.example"])
                }
            }
            try store.transaction { try $0.setClientWebOrigins(clientID: client.id, webOrigins: ["https://b.example"]) }
            #expect(try store.deleteClient(id: client.id))
            #expect(try store.read { try $0.webOrigins(clientID: client.id) }.isEmpty)
        }
    }

    func aRotationKeepsThePreviousHashUntilItExpires() throws {
        try withStore { store throws in
            let (_, client) = try StoreFixtures.userAndClient(in: store)
            let until = referenceTime.addingTimeInterval(86_400)
            #expect(
                try store.writeOne {
                    try $0.rotateClientSecret(
                        id: client.id, newHash: SecretHash.digest("new"), previousExpiresAt: until)
                })
            let rotated = try #require(try store.client(id: client.id))
            #expect(rotated.verifiesSecret("new", at: referenceTime))
            #expect(rotated.verifiesSecret("s3cret", at: until.addingTimeInterval(-1)))
            #expect(!rotated.verifiesSecret("s3cret", at: until))
            #expect(rotated.previousSecretExpiresAt == until)
            let publicClient = StoreFixtures.client(type: .public, secret: nil)
            try store.insert(publicClient)
            #expect(
                try !store.writeOne {
                    try $0.rotateClientSecret(
                        id: publicClient.id, newHash: SecretHash.digest("x"), previousExpiresAt: until)
                })
            #expect(try store.client(id: publicClient.id)?.secretHash == nil)
        }
    }
}

/// The checks of this file, named as the tests they are.
enum DeveloperChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("DeveloperStoreTests.appsTermsAndOperators") {
                try DeveloperStoreTests(open: $0).appsTermsAndOperators()
            },
            .init("DeveloperStoreTests.webOriginsOfAClient") {
                try DeveloperStoreTests(open: $0).webOriginsOfAClient()
            },
            .init("DeveloperStoreTests.aRotationKeepsThePreviousHashUntilItExpires") {
                try DeveloperStoreTests(open: $0).aRotationKeepsThePreviousHashUntilItExpires()
            },
        ]
    }
}
