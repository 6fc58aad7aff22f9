import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer
@testable import PorticoStorePostgres

/// Two providers on one PostgreSQL database, as two nodes behind a load balancer: they share
/// the back-channel logout outbox, and every message reaches the app's backend exactly once
/// (claims lease messages with `FOR UPDATE SKIP LOCKED`).
@Suite(TestServer.required) struct PostgresBackChannelDeliveryTests {
    @Test func twoNodesOnOneDatabaseDeliverEachMessageOnce() async throws {
        let database = try TemporaryDatabase()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-bcl-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ProviderConfiguration.testing { configuration in
            configuration.issuer = "http://127.0.0.1:1"
            configuration.keyFile = directory.appendingPathComponent("signing.key").path
            configuration.outboxDirectory = directory.appendingPathComponent("outbox").path
            configuration.backchannelLogout = BackChannelLogoutSettings(
                pollInterval: .milliseconds(20), requestTimeout: .seconds(3), batchSize: 2)
        }
        let store = try database.store()
        defer { store.close() }
        let first = try IdentityProvider(configuration: configuration, store: try database.store())
        try first.start()
        defer { first.shutdown() }
        let second = try IdentityProvider(configuration: configuration, store: try database.store())
        try second.start()
        defer { second.shutdown() }

        let receiver = try LogoutReceiver()
        var client = Client(
            name: "Host", type: .confidential, secret: "secret", redirectURIs: ["https://host.example/cb"])
        client.backchannelLogoutURI = receiver.uri
        try store.insert(client)
        let people = (0..<40).map { "person-\($0)" }
        try store.transaction { transaction in
            for person in people {
                try BackChannelLogout.enqueue(
                    userID: person, clientIDs: [client.id], sessionID: nil, now: Date(), in: transaction)
            }
        }

        _ = try await receiver.tokens(atLeast: people.count)
        try await waitUntil("an empty outbox") { try store.read { try $0.pendingOutboxMessageCount() } == 0 }
        var subjects: [String] = []
        for token in receiver.tokens {
            let parts = token.split(separator: ".")
            let header = try #require(Base64URL.decode(parts[0]).flatMap { JSONValue(parsing: $0) })
            #expect(header.objectValue?["typ"]?.stringValue == "logout+jwt")
            let claims = try JWTClaims(json: try #require(Base64URL.decode(parts[1])))
            #expect(claims.audience == [client.id])
            subjects.append(try #require(claims.subject))
        }
        #expect(subjects.count == people.count, "a message was delivered more than once")
        #expect(Set(subjects) == Set(people))
    }
}
