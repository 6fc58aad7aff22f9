import PorticoServer

extension ProviderConfiguration {
    /// What a ``ProviderHarness`` starts from: no request log, two HTTP threads, cheap password
    /// hashing; then `change` adjusts it (lifetimes, intervals, metrics, demo, mailer…).
    ///
    /// A value rather than a closure parameter of the harness, so that a test reads
    /// `ProviderHarness.with(configuration: .testing { $0.metrics = true }) { harness in … }`.
    public static func testing(_ change: (inout ProviderConfiguration) -> Void = { _ in }) -> ProviderConfiguration {
        var configuration = ProviderConfiguration(
            port: 0, threads: 2, logRequests: false, passwordHashing: ProviderHarness.passwordHashing)
        // The apps' backends of tests (logout receivers, the example host backend) run on
        // 127.0.0.1.
        configuration.allowsLoopbackCallbacks = true
        change(&configuration)
        return configuration
    }
}
