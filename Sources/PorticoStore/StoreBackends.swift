import Synchronization

/// The backends this process can open, by URL scheme: the one place that picks a backend for a
/// `--database` URL, so that nothing else names one.
///
/// Like a logging system's bootstrap, the process registers each backend once, before it opens
/// a store: `portico`'s `main`, the test harness and the benchmarks' seeder each register the
/// SQLite and PostgreSQL backends in one line apiece.
///
/// # Adding a backend
///
/// 1. A module (`PorticoStore<Name>`) with a type conforming to ``Store`` whose transactions
///    conform to ``StoreTransaction``, and a ``StoreBackend`` naming its schemes.
/// 2. The conformance suite, `PorticoStoreConformance` (`StoreConformance.checks`, each run with
///    `Check.run` on a fresh database), passing against it in a test target of its own. The suite
///    depends on `PorticoStore` alone, so the backend proves itself without the server; the
///    provider's policies on top of a backend are checked by the provider's tests
///    (`PolicyChecks` in `PorticoTesting`), which a backend that serves the provider adds to its
///    test target as the PostgreSQL one does.
/// 3. One `StoreBackends.register(…)` line where the others are registered (`portico`'s
///    `main.swift`, `PorticoTesting`'s `TestDatabase`).
public enum StoreBackends {
    private static let registered = Mutex<[String: any StoreBackend]>([:])

    /// Makes `backend` open the URLs of its schemes; a later registration of a scheme replaces
    /// an earlier one.
    public static func register(_ backend: any StoreBackend) {
        registered.withLock { backends in
            for scheme in backend.schemes { backends[scheme.lowercased()] = backend }
        }
    }

    /// The backend for `scheme`, if one is registered.
    public static func backend(forScheme scheme: String) -> (any StoreBackend)? {
        registered.withLock { $0[scheme.lowercased()] }
    }

    /// The schemes registered, sorted, for messages.
    public static var schemes: [String] {
        registered.withLock { $0.keys.sorted() }
    }

    /// Opens the store `url` names with its backend.
    public static func open(_ url: DatabaseURL, options: StoreOpening = StoreOpening()) throws -> any Store {
        try url.backend.open(url, options: options)
    }

    /// Parses `text` and opens the store it names.
    public static func open(_ text: String, options: StoreOpening = StoreOpening()) throws -> any Store {
        try open(DatabaseURL(parsing: text), options: options)
    }
}
