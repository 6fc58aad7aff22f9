import PorticoStoreConformance

/// The provider's policies (``RefreshTokenPolicy``, ``DevicePollPolicy``, ``ConsentPolicy`` in
/// `PorticoServer`) checked on a real backend, races included: the checks that used to sit in the
/// store conformance suite but decide what the provider does rather than what a backend stores.
/// Here, beside the provider harness, because they need the server; the store conformance suite
/// (`PorticoStoreConformance`) needs only `PorticoStore`. PorticoServerTests runs them on SQLite,
/// PorticoStorePostgresTests on PostgreSQL, each check on a fresh database, exactly as the
/// conformance suite's checks run.
public enum PolicyChecks {
    /// Every check, in a stable order.
    public static var checks: [StoreConformance.Check] {
        RefreshTokenPolicyChecks.all + DevicePollPolicyChecks.all + ConsentPolicyChecks.all
    }
}
