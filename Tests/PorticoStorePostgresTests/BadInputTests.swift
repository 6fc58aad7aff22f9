import Foundation
import PorticoTesting
import Testing

/// What a PostgreSQL text cannot hold (a NUL character) is refused as the request's own error
/// before it reaches the backend: the whole ``BadInputProbe``, fuzz corpora included, through a
/// provider on PostgreSQL without one 5xx.
@Suite(TestServer.required) struct BadInputTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fuzz/corpus")

    @Test("no hostile value or fuzz corpus input yields a 5xx on PostgreSQL")
    func noServerErrors() async throws {
        let database = try TemporaryDatabase()
        try await ProviderHarness.with(database: .postgres(url: database.url)) { harness in
            let values = BadInputProbe.values + BadInputProbe.corpusValues(in: Self.corpus)
            let failures = try await BadInputProbe.failures(of: harness, values: values)
            #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        }
    }
}
