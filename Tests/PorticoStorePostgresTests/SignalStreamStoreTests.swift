import Foundation
import PorticoStore
import PorticoStoreConformance
import PorticoTesting
import Testing

@testable import PorticoStorePostgres

/// Migration 16's streams, excluded subjects and poll queue on PostgreSQL, with the meaning the
/// SQLite backend gives them (the statements are written once, in PorticoStoreSQL).
@Suite(TestServer.required) struct SignalStreamStoreTests {
    @Test func streamsSubjectsAndThePollQueue() throws {
        let database = try TemporaryDatabase()
        let store = try database.store()
        defer { store.close() }
        let (user, client) = try StoreFixtures.userAndClient(in: store)
        let now = StoreFixtures.referenceTime
        var stream = SignalStream(
            clientID: client.id, deliveryMethod: "urn:ietf:rfc:8936", endpointURL: nil,
            eventsRequested: ["a", "b"], createdAt: now)
        try store.transaction { try $0.insertSignalStream(stream) }
        let second = caught(StoreError.self) {
            try store.transaction {
                try $0.insertSignalStream(
                    SignalStream(
                        clientID: client.id, deliveryMethod: "x", endpointURL: nil, eventsRequested: [], createdAt: now)
                )
            }
        }
        guard case .duplicate = second else {
            Issue.record("a second stream for one client was stored: \(String(describing: second))")
            return
        }
        stream.status = "paused"
        stream.statusReason = "maintenance"
        #expect(try store.transaction { try $0.updateSignalStream(stream) })
        #expect(try store.read { try $0.signalStream(clientID: client.id) } == stream)

        #expect(try store.transaction { try $0.excludeSignalSubject(clientID: client.id, userID: user.id, at: now) })
        #expect(try !store.transaction { try $0.excludeSignalSubject(clientID: client.id, userID: user.id, at: now) })
        #expect(try store.read { try $0.isSignalSubjectExcluded(clientID: client.id, userID: user.id) })
        #expect(try store.transaction { try $0.includeSignalSubject(clientID: client.id, userID: user.id) })
        #expect(try !store.read { try $0.isSignalSubjectExcluded(clientID: client.id, userID: user.id) })

        try store.transaction { transaction in
            for jti in ["c", "a", "b"] {
                try transaction.enqueuePolledSignal(
                    PolledSignal(clientID: client.id, jti: jti, payload: "{}", createdAt: now))
            }
        }
        #expect(try store.read { try $0.polledSignals(clientID: client.id, limit: 2) }.map(\.jti) == ["a", "b"])
        #expect(try store.transaction { try $0.acknowledgePolledSignals(clientID: client.id, jtis: ["a", "z"]) } == 1)
        #expect(try store.read { try $0.polledSignalCount(clientID: client.id) } == 2)

        // A deleted stream takes its queue and exclusions with it.
        try store.transaction { _ = try $0.excludeSignalSubject(clientID: client.id, userID: user.id, at: now) }
        #expect(try store.transaction { try $0.deleteSignalStream(clientID: client.id) })
        #expect(try store.read { try $0.polledSignalCount(clientID: client.id) } == 0)
        #expect(try !store.read { try $0.isSignalSubjectExcluded(clientID: client.id, userID: user.id) })
        #expect(try store.read { try $0.signalStream(clientID: client.id) } == nil)
    }
}
