import PorticoStore

/// Makes the signing keys a new database needs, outside a running server.
///
/// `portico migrate` calls this so that a deployment that migrates before rolling out servers
/// has its keys made once, instead of by whichever node starts first.
public enum SigningKeyProvisioning {
    /// Creates a current key for each algorithm (RS256, ES256, EdDSA, PS256) that has none,
    /// sealed with `encryption` (as are keys still stored in plain PEM), and returns the
    /// algorithms it made keys for: on a database from before PS256, that one alone.
    @discardableResult
    public static func ensureKeys(in store: any Store, encryption: SigningKeyEncryption) throws -> [String] {
        let before = Set(try store.signingKeys().filter { $0.isCurrent && $0.state == .active }.map(\.algorithm))
        _ = try KeyRing(store: store, encryption: encryption)
        return KeyRing.algorithms.map(\.rawValue).filter { !before.contains($0) }
    }
}
