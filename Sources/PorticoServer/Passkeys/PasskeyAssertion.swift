/// The outcome of an assertion that passed every check of WebAuthn Level 3 §7.2: what to
/// write back to the credential (step 25).
public struct PasskeyAssertion: Sendable, Equatable {
    /// The new signature counter.
    public var signCount: UInt32
    /// BS now; BE cannot change.
    public var backedUp: Bool
    /// BE, as registered.
    public var backupEligible: Bool
}
