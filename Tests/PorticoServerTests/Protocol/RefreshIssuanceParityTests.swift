import PorticoTesting
import Testing

/// A narrowed refresh (the two-step rotation) issues what the one-step rotation issues
/// (``RefreshIssuanceParity``), on SQLite; PostgreSQL's run is in PorticoStorePostgresTests.
@Suite struct RefreshIssuanceParityTests {
    @Test func aNarrowedRefreshIssuesWhatTheOneStepRotationIssues() async throws {
        try await ProviderHarness.with { harness in try await RefreshIssuanceParity.check(harness) }
    }
}
