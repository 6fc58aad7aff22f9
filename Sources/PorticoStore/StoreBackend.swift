/// A storage backend as ``StoreBackends`` knows it: the URL schemes it opens, how it reads
/// their URLs, and how it opens a store.
///
/// A backend is one module that implements ``Store`` plus one value of this protocol, registered
/// by its schemes in one line (``StoreBackends/register(_:)``) by whoever opens stores: the
/// command line and the test harness.
public protocol StoreBackend: Sendable {
    /// The URL schemes it opens, without `:` (`sqlite`; `postgres` and `postgresql`).
    var schemes: [String] { get }

    /// The canonical text of `url`, a URL of one of ``schemes``, as ``DatabaseURL`` keeps it.
    ///
    /// - Throws: ``StoreError/unsupportedURL(_:)`` for a URL of its scheme that it cannot use.
    func canonical(_ url: String) throws -> String

    /// Opens the store `url` names.
    ///
    /// - Throws: ``StoreError/notFound(entity:id:)`` when the database does not exist and
    ///   `options` does not allow making it; whatever opening the database throws.
    func open(_ url: DatabaseURL, options: StoreOpening) throws -> any Store

    /// `url` as messages may print it: secrets (a password in the URL) replaced by `***`.
    func displayed(_ url: DatabaseURL) -> String
}

extension StoreBackend {
    /// The URL as it is; a backend whose URLs carry secrets says otherwise.
    public func displayed(_ url: DatabaseURL) -> String {
        url.description
    }
}
