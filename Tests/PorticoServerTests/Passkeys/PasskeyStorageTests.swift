import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

/// The passkey tables on both backends: user handles, credentials unique across accounts, the
/// counter's compare-and-swap, and single-use challenges that any node can take.
@Suite struct PasskeyStorageTests {
    @Test func onSQLite() throws { try check(.sqlite) }

    @Test(CrashBackend.postgresRequired) func onPostgreSQL() throws { try check(.postgres) }

    func check(_ backend: CrashBackend) throws {
        TestDatabase.backendsRegistered
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkeys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try CrashDatabase(backend, directory: directory)
        defer { database.drop() }
        let store = try StoreBackends.open(try DatabaseURL(parsing: database.url), options: StoreOpening())
        defer { store.close() }
        // A second store on the same database: another node.
        let otherNode = try StoreBackends.open(try DatabaseURL(parsing: database.url), options: StoreOpening())
        defer { otherNode.close() }

        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let ann = UserRecord(email: "ann@example.com", name: "Ann", passwordHash: "x", createdAt: now)
        let bob = UserRecord(email: "bob@example.com", name: "Bob", passwordHash: "x", createdAt: now)
        try store.transaction {
            try $0.insert(ann)
            try $0.insert(bob)
        }

        // User handles: one per person, kept, found by value.
        let handle = SecureRandom.bytes(count: 64)
        #expect(try store.transaction { try $0.assignPasskeyUserHandle(userID: ann.id, handle: handle) } == handle)
        let second = SecureRandom.bytes(count: 64)
        #expect(try store.transaction { try $0.assignPasskeyUserHandle(userID: ann.id, handle: second) } == handle)
        #expect(try otherNode.read { try $0.userID(passkeyUserHandle: handle) } == ann.id)
        #expect(try otherNode.read { try $0.userID(passkeyUserHandle: second) } == nil)

        // Credentials: the id is unique across accounts.
        let id = SecureRandom.bytes(count: 32)
        let credential = PasskeyCredential(
            credentialID: id, userID: ann.id, publicKey: [1, 2, 3], algorithm: -7, signCount: 5,
            backupEligible: true, backedUp: false, name: "Phone", createdAt: now)
        try store.transaction { try $0.insert(credential) }
        var stolen = credential
        stolen.userID = bob.id
        #expect(throws: StoreError.duplicate(field: "credential_id")) {
            try store.transaction { try $0.insert(stolen) }
        }
        #expect(try otherNode.read { try $0.passkeyCredential(id: id) } == credential)
        #expect(try store.read { try $0.passkeyCredentials(userID: ann.id) } == [credential])
        #expect(try store.read { try $0.passkeyCredentials(userID: bob.id) }.isEmpty)

        // The counter moves on only from the value read.
        let later = now.addingTimeInterval(60)
        #expect(
            try store.transaction {
                try $0.recordPasskeyUse(credentialID: id, previousSignCount: 5, signCount: 6, backedUp: true, at: later)
            })
        #expect(
            try !otherNode.transaction {
                try $0.recordPasskeyUse(credentialID: id, previousSignCount: 5, signCount: 6, backedUp: true, at: later)
            })
        let used = try #require(try store.read { try $0.passkeyCredential(id: id) })
        #expect(used.signCount == 6 && used.backedUp && used.lastUsedAt == later)

        // Rename and remove only one's own.
        #expect(try !store.transaction { try $0.renamePasskey(userID: bob.id, credentialID: id, name: "Mine") })
        #expect(try store.transaction { try $0.renamePasskey(userID: ann.id, credentialID: id, name: "Laptop") })
        #expect(try store.read { try $0.passkeyCredential(id: id) }?.name == "Laptop")
        #expect(try !store.transaction { try $0.deletePasskey(userID: bob.id, credentialID: id) })
        #expect(try store.transaction { try $0.deletePasskey(userID: ann.id, credentialID: id) })
        #expect(try store.read { try $0.passkeyCredential(id: id) } == nil)

        // Challenges: begun on one node, taken once on another, of their own purpose, unexpired.
        let hash = Digest.sha256.hash(SecureRandom.bytes(count: 32))
        let challenge = PasskeyChallenge(
            challengeHash: hash, purpose: .registration, userID: ann.id, createdAt: now,
            expiresAt: now.addingTimeInterval(300))
        try store.transaction { try $0.insert(challenge, now: now) }
        #expect(
            try otherNode.transaction { try $0.consumePasskeyChallenge(hash: hash, purpose: .signIn, now: now) } == nil)
        #expect(
            try otherNode.transaction { try $0.consumePasskeyChallenge(hash: hash, purpose: .registration, now: now) }
                == challenge)
        #expect(
            try store.transaction { try $0.consumePasskeyChallenge(hash: hash, purpose: .registration, now: now) }
                == nil)
        let expiring = PasskeyChallenge(
            challengeHash: Digest.sha256.hash([1]), purpose: .signIn, userID: nil, createdAt: now,
            expiresAt: now.addingTimeInterval(300))
        try store.transaction { try $0.insert(expiring, now: now) }
        #expect(
            try store.transaction {
                try $0.consumePasskeyChallenge(
                    hash: expiring.challengeHash, purpose: .signIn, now: now.addingTimeInterval(300))
            } == nil)

        // Sealed challenges: recorded once on any node, kept until their own expiry.
        let sealed = PasskeyChallenge(
            challengeHash: Digest.sha256.hash([2]), purpose: .signIn, userID: nil, createdAt: now,
            expiresAt: now.addingTimeInterval(300))
        #expect(try store.transaction { try $0.claimPasskeyChallenge(sealed, now: now) })
        #expect(try !otherNode.transaction { try $0.claimPasskeyChallenge(sealed, now: now.addingTimeInterval(299)) })
        #expect(try !store.transaction { try $0.claimPasskeyChallenge(sealed, now: now) })
        // Only the purge removes a record, once its expiry has passed; a claim never does, even
        // on a node whose clock runs ahead.
        #expect(try !store.transaction { try $0.claimPasskeyChallenge(sealed, now: now.addingTimeInterval(900)) })
        #expect(try store.purgeExpired(now: now.addingTimeInterval(299)).passkeyChallenges == 0)
        #expect(try store.purgeExpired(now: now.addingTimeInterval(300)).passkeyChallenges >= 1)
        #expect(try store.transaction { try $0.claimPasskeyChallenge(sealed, now: now.addingTimeInterval(300)) })

        // A removed account takes its passkeys with it.
        try store.transaction { try $0.insert(credential) }
        let dropped = try store.transaction { try $0.deleteUser(id: ann.id) }
        #expect(dropped)
        #expect(try store.read { try $0.passkeyCredential(id: id) } == nil)
        #expect(try store.read { try $0.userID(passkeyUserHandle: handle) } == nil)
    }
}
