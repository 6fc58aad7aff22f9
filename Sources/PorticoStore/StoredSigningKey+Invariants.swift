// What every backend refuses to store about a signing key, checked here once so that no backend
// can disagree (a backend holds no policy).
extension StoredSigningKey {
    /// Throws unless the key may be the current signer of its algorithm: a retired key cannot be.
    public func checkMayBeCurrent() throws {
        guard state == .active else { throw StoreError.invalidArgument("a retired key cannot be current") }
    }

    /// Throws unless the key may be an algorithm's first key, which is inserted as the current
    /// signer (``FirstSigningKeyStorage``): it must be active and current.
    public func checkFirstKey() throws {
        guard isCurrent, state == .active else {
            throw StoreError.invalidArgument("a first signing key must be active and current")
        }
    }
}
