import Foundation
import PorticoStore
import Testing

@testable import PorticoStorePostgres

/// With several nodes, each runs a purger on the one database: a batch is done by one node
/// at a time, the others skip it (an advisory lock taken without waiting).
@Suite(TestServer.required) struct PurgeLockTests {
    @Test func aPurgeWhileAnotherNodeIsPurgingSkipsTheBatch() throws {
        let database = try TemporaryDatabase()
        let first = try database.store(poolSize: 1)
        defer { first.close() }
        let second = try database.store(poolSize: 1)
        defer { second.close() }
        let now = Date()
        try first.transaction { try $0.revokeAccessToken(id: "expired", expiresAt: now.addingTimeInterval(-60)) }

        try first.transaction { transaction in
            // This node's purge is under way (a purge as of long ago deletes nothing but holds
            // the batch's lock until the transaction ends).
            _ = try transaction.purgeExpired(now: now.addingTimeInterval(-86_400 * 365))
            let skipped = try second.purgeExpired(now: now)
            #expect(skipped == PurgeReport())
            #expect(try second.read { try $0.isAccessTokenRevoked(id: "expired") })
        }
        // The lock ended with the transaction: the next purge, on any node, does the work.
        #expect(try second.purgeExpired(now: now).accessTokenRevocations == 1)
        #expect(try !second.read { try $0.isAccessTokenRevoked(id: "expired") })
    }
}
