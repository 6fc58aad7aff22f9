import Foundation
import PorticoTesting
import Testing

/// Hostile values in every parameter that reaches the store (``BadInputProbe``) get the
/// request's own error on SQLite; PorticoStorePostgresTests runs the same probe on PostgreSQL.
@Suite struct BadInputTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("fuzz/corpus")

    @Test("no hostile value or fuzz corpus input yields a 5xx on SQLite")
    func noServerErrors() async throws {
        try await ProviderHarness.with { harness in
            let values = BadInputProbe.values + BadInputProbe.corpusValues(in: Self.corpus)
            let failures = try await BadInputProbe.failures(of: harness, values: values)
            #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        }
    }
}
