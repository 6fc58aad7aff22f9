import PorticoTesting
import Testing

/// On PostgreSQL, where the one-step rotation is one statement of its own: a narrowed refresh
/// (the two-step rotation) issues what it issues (``RefreshIssuanceParity``).
@Suite(TestServer.required) struct RefreshIssuanceParityTests {
    @Test func aNarrowedRefreshIssuesWhatTheOneStepRotationIssues() async throws {
        let database = try TemporaryDatabase()
        try await ProviderHarness.with(database: .postgres(url: database.url)) { harness in
            try await RefreshIssuanceParity.check(harness)
        }
    }
}
