/// Where a store's data lives, as far as the provider's own files care: the key file that
/// encrypts signing keys and the mail outbox sit beside a database file, a database that lives
/// only in this process needs a key that does too, and one that several nodes share needs a key
/// file that the operator names on every node.
///
/// Why a location rather than the backend's name: the provider decides these from where the
/// data is, so a new backend states its location and the provider needs no change.
public enum StoreLocation: Sendable, Hashable {
    /// A database file on this machine.
    case file(path: String)
    /// A database that lives only in this process (`sqlite::memory:`).
    case process
    /// A database server that several nodes may share.
    case server

    /// The folder of a database file; nil elsewhere.
    public var localDirectory: String? {
        guard case .file(let path) = self else { return nil }
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }
}
