import Foundation
import PorticoStore
import Testing

struct UserTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func createReadUpdateDelete() throws {
        try withStore { store throws in
            var user = StoreFixtures.user("Ann.Lee@Example.COM")
            try store.insert(user)
            #expect(try store.user(id: user.id) == user)
            #expect(try store.user(email: "ann.lee@example.com") == user)
            #expect(try store.user(email: "ANN.LEE@EXAMPLE.COM")?.email == "Ann.Lee@Example.COM")

            user.name = "Ann Lee"
            user.postalCode = nil
            user.isDisabled = true
            user.email = "ann@example.org"
            user.updatedAt = referenceTime.addingTimeInterval(10)
            try store.update(user)
            #expect(try store.user(id: user.id) == user)
            #expect(try store.user(email: "ann.lee@example.com") == nil)
            #expect(try store.users().map(\.id) == [user.id])

            #expect(try store.deleteUser(id: user.id))
            #expect(try store.user(id: user.id) == nil)
            #expect(try store.deleteUser(id: user.id) == false)
        }
    }

    func emailIsUniqueIgnoringCase() throws {
        try withStore { store throws in
            try store.insert(StoreFixtures.user("ann@example.com"))
            #expect(throws: StoreError.duplicate(field: "email")) {
                try store.insert(StoreFixtures.user("ANN@Example.com", name: "Impostor"))
            }
            let other = StoreFixtures.user("bob@example.com")
            try store.insert(other)
            var renamed = other
            renamed.email = "Ann@example.COM"
            #expect(throws: StoreError.duplicate(field: "email")) { try store.update(renamed) }
        }
    }

    func duplicateIDIsTyped() throws {
        try withStore { store throws in
            let user = StoreFixtures.user()
            try store.insert(user)
            var copy = StoreFixtures.user("other@example.com")
            copy.id = user.id
            #expect(throws: StoreError.duplicate(field: "id")) { try store.insert(copy) }
        }
    }

    func updatingAMissingUserIsNotFound() throws {
        try withStore { store throws in
            let user = StoreFixtures.user()
            #expect(throws: StoreError.notFound(entity: "user", id: user.id)) { try store.update(user) }
        }
    }

    func oddInputIsStoredFaithfully() throws {
        try withStore { store throws in
            let user = UserRecord(
                email: "we'ird\"; DROP TABLE users; --@example.com", name: "Zoë \u{1} \u{1F600} \\ \n $1 ?",
                passwordHash: "", createdAt: referenceTime)
            try store.insert(user)
            #expect(try store.user(id: user.id) == user)
            #expect(try store.user(email: user.email) == user)
            // A NUL: SQLite keeps it, PostgreSQL's text cannot hold one. Either way never a
            // shortened name: the text comes back whole, or is refused and nothing is stored.
            let nul = UserRecord(
                email: "nul@example.com", name: "Zoë \u{0} end", passwordHash: "", createdAt: referenceTime)
            do {
                try store.insert(nul)
                #expect(try store.user(id: nul.id) == nul)
            } catch StoreError.invalidArgument {
                #expect(try store.user(id: nul.id) == nil)
            }
        }
    }
}

struct ClientTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func createReadUpdateDelete() throws {
        try withStore { store throws in
            var client = StoreFixtures.client()
            try store.insert(client)
            #expect(try store.client(id: client.id) == client)
            #expect(try store.clients() == [client])

            client.name = "Renamed"
            client.redirectURIs.append("http://127.0.0.1/callback")
            client.idTokenSigningAlgorithm = "EdDSA"
            client.logoURL = nil
            try store.update(client)
            #expect(try store.client(id: client.id) == client)

            let publicClient = StoreFixtures.client(type: .public)
            try store.insert(publicClient)
            #expect(try store.clients().count == 2)
            #expect(try store.client(id: publicClient.id)?.secretHash == nil)

            #expect(try store.deleteClient(id: client.id))
            #expect(try store.client(id: client.id) == nil)
            #expect(try store.clients() == [publicClient])
        }
    }

    func secretIsStoredHashedAndVerified() throws {
        try withStore { store throws in
            var client = StoreFixtures.client(secret: "correct horse")
            try store.insert(client)
            let stored = try #require(try store.client(id: client.id))
            #expect(stored.secretHash?.count == 32)
            #expect(stored.secretHash != Array("correct horse".utf8))
            #expect(stored.verifiesSecret("correct horse"))
            #expect(!stored.verifiesSecret("correct horse "))
            #expect(try store.verifyClientSecret(clientID: client.id, secret: "correct horse"))
            #expect(try !store.verifyClientSecret(clientID: client.id, secret: "wrong"))
            #expect(try !store.verifyClientSecret(clientID: "nobody", secret: "correct horse"))

            client.setSecret("rotated")
            try store.update(client)
            #expect(try store.verifyClientSecret(clientID: client.id, secret: "rotated"))
            #expect(try !store.verifyClientSecret(clientID: client.id, secret: "correct horse"))
        }
    }

    func confidentialClientNeedsASecret() throws {
        try withStore { store throws in
            let client = Client(name: "No secret", type: .confidential, redirectURIs: ["https://x.example/cb"])
            #expect(throws: StoreError.self) { try store.insert(client) }
            #expect(try store.clients().isEmpty)
        }
    }
}

struct ProductScopeTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func createReadUpdateDelete() throws {
        try withStore { store throws in
            var scope = ProductScope(name: "orders:read", description: "See your orders", createdAt: referenceTime)
            try store.insert(scope)
            try store.insert(ProductScope(name: "a:first", description: "First", createdAt: referenceTime))
            #expect(try store.productScope(name: "orders:read") == scope)
            #expect(try store.productScopes().map(\.name) == ["a:first", "orders:read"])
            #expect(throws: StoreError.duplicate(field: "name")) { try store.insert(scope) }

            scope.description = "See and track your orders"
            try store.update(scope)
            #expect(try store.productScope(name: "orders:read")?.description == "See and track your orders")
            #expect(try store.deleteProductScope(name: "orders:read"))
            #expect(try store.productScope(name: "orders:read") == nil)
        }
    }
}

struct SigningKeyTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func createReadRotateRetireDelete() throws {
        try withStore { store throws in
            let first = StoredSigningKey(
                algorithm: "ES256", privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAA\n-----END PRIVATE KEY-----\n",
                isCurrent: true, createdAt: referenceTime)
            try store.insert(first)
            #expect(try store.signingKey(id: first.id) == first)
            #expect(try store.currentSigningKey(algorithm: "ES256") == first)
            #expect(try store.currentSigningKey(algorithm: "RS256") == nil)

            // A new current key replaces the old signer of its algorithm only.
            let rsa = StoredSigningKey(
                algorithm: "RS256", privateKeyPEM: "rsa", isCurrent: true, createdAt: referenceTime)
            let second = StoredSigningKey(
                algorithm: "ES256", privateKeyPEM: "second", createdAt: referenceTime.addingTimeInterval(1))
            try store.insert(rsa)
            try store.insert(second)
            try store.makeCurrentSigningKey(id: second.id)
            #expect(try store.currentSigningKey(algorithm: "ES256")?.id == second.id)
            #expect(try store.currentSigningKey(algorithm: "RS256")?.id == rsa.id)
            #expect(try store.signingKey(id: first.id)?.isCurrent == false)

            try store.retireSigningKey(id: first.id, at: referenceTime.addingTimeInterval(5))
            let retired = try #require(try store.signingKey(id: first.id))
            #expect(retired.state == .retired)
            #expect(retired.retiredAt == referenceTime.addingTimeInterval(5))
            #expect(throws: StoreError.self) { try store.makeCurrentSigningKey(id: first.id) }
            #expect(try store.signingKeys().count == 3)

            #expect(try store.deleteSigningKey(id: first.id))
            #expect(try store.signingKeys().map(\.id).sorted() == [rsa.id, second.id].sorted())
            #expect(throws: StoreError.notFound(entity: "signing key", id: "missing")) {
                try store.makeCurrentSigningKey(id: "missing")
            }
        }
    }
}

/// The checks of this file, named as the tests they were.
enum UserAndClientChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("UserTests.createReadUpdateDelete") { try UserTests(open: $0).createReadUpdateDelete() },
            .init("UserTests.emailIsUniqueIgnoringCase") { try UserTests(open: $0).emailIsUniqueIgnoringCase() },
            .init("UserTests.duplicateIDIsTyped") { try UserTests(open: $0).duplicateIDIsTyped() },
            .init("UserTests.updatingAMissingUserIsNotFound") {
                try UserTests(open: $0).updatingAMissingUserIsNotFound()
            },
            .init("UserTests.oddInputIsStoredFaithfully") { try UserTests(open: $0).oddInputIsStoredFaithfully() },
            .init("ClientTests.createReadUpdateDelete") { try ClientTests(open: $0).createReadUpdateDelete() },
            .init("ClientTests.secretIsStoredHashedAndVerified") {
                try ClientTests(open: $0).secretIsStoredHashedAndVerified()
            },
            .init("ClientTests.confidentialClientNeedsASecret") {
                try ClientTests(open: $0).confidentialClientNeedsASecret()
            },
            .init("ProductScopeTests.createReadUpdateDelete") {
                try ProductScopeTests(open: $0).createReadUpdateDelete()
            },
            .init("SigningKeyTests.createReadRotateRetireDelete") {
                try SigningKeyTests(open: $0).createReadRotateRetireDelete()
            },
        ]
    }
}
