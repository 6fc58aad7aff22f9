import Foundation
import PorticoStore
import PorticoStoreConformance
import PorticoTesting
import Testing

@testable import PorticoStorePostgres

/// What the one-step refresh rotation relies on in this backend: `writeOne` sends its one
/// statement alone, outside any transaction, and version 14 leaves room in the families' pages.
@Suite(TestServer.required) struct RefreshRotationStoreTests {
    @Test func writeOneRunsItsStatementAloneAndRefusesASecond() throws {
        let database = try TemporaryDatabase()
        let store = try database.store()
        defer { store.close() }
        let (user, client) = try StoreFixtures.userAndClient(in: store)
        let now = StoreFixtures.referenceTime
        let family = RefreshFamily(
            clientID: client.id, userID: user.id, scopes: ["profile"], authTime: now, createdAt: now)
        let token = RefreshToken.mint(familyID: family.id)
        try store.transaction { try $0.insert(family, token: token, expiresAt: now + 3600) }
        let successor = RefreshToken.mint(familyID: family.id)
        let error = caught(StoreError.self) {
            _ = try store.writeOne { transaction in
                _ = try transaction.rotateRefreshToken(
                    familyID: family.id, from: SecretHash.digest(token), to: SecretHash.digest(successor),
                    clientID: client.id, now: now + 1, expiresAt: now + 7200)
                return try transaction.refreshFamily(id: family.id)
            }
        }
        guard case .misuse = error else {
            Issue.record("a second statement in writeOne was not refused: \(String(describing: error))")
            return
        }
        // No transaction was around the first statement, so nothing rolled it back.
        let state = try #require(try store.read { try $0.refreshTokenState(familyID: family.id) })
        #expect(state.currentTokenHash == SecretHash.digest(successor))
    }

    @Test func refreshFamiliesKeepRoomInTheirPagesForRotations() throws {
        let database = try TemporaryDatabase()
        try database.store().close()
        let options = try database.connection().scalar(
            "SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = 'refresh_families'")
        #expect(options == "fillfactor=75")
    }
}
