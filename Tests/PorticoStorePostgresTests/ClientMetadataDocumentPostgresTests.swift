import Foundation
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Client metadata documents on PostgreSQL: many first uses of one document at once (their
/// transactions race to make the row) all go on to sign-in, with one row; the row's
/// `jwks_uri`-free public client is unverified until `portico client verify URL`.
@Suite(TestServer.required) struct ClientMetadataDocumentPostgresTests {
    @Test func firstUsesAtOnceAllSucceedWithOneRow() async throws {
        let database = try TemporaryDatabase()
        let server = try HTTPSDocumentServer()
        let url = server.url("/busy.json")
        try server.serve(
            "/busy.json",
            body: """
                {"client_id": "\(url)", "client_name": "Busy Agent", "redirect_uris": ["https://agent.example/cb"]}
                """, headers: ["Cache-Control": "no-store"])
        let configuration = ProviderConfiguration.testing {
            $0.allowsLoopbackClientMetadata = true
            $0.outboundTrustedCertificatesFile = server.certificate
        }
        try await ProviderHarness.with(database: .postgres(url: database.url), configuration: configuration) {
            harness in
            let client = Client(id: url, name: "agent", type: .public, redirectURIs: ["https://agent.example/cb"])
            let replies = try await withThrowingTaskGroup(of: TestReply.self) { group in
                for _ in 0..<12 {
                    group.addTask { try await harness.browser().get(TestBrowser.authorizePath(client: client)) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for reply in replies {
                #expect(reply.location?.hasPrefix("/login") == true, "\(reply.status) \(reply.text)")
            }
            let rows = try harness.store.transaction { try $0.clients() }.filter { $0.id == url }
            #expect(rows.count == 1)
            #expect(rows.first?.isVerified == false)
            try ClientStandingChange.verify.apply(toClient: url, in: harness.store)
            _ = try await harness.browser().get(TestBrowser.authorizePath(client: client))
            #expect(try harness.store.transaction { try $0.client(id: url) }?.isVerified == true)
        }
    }
}
