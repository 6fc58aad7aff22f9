/// How a command wants a store opened; each backend takes what applies to it.
public struct StoreOpening: Sendable {
    /// Whether to apply missing migrations on opening (`portico migrate` says false and calls
    /// ``Store/migrate()`` itself to report the versions).
    public var migrate: Bool
    /// Whether a database that does not exist yet may be made (`serve` and `migrate`); an admin
    /// command refuses instead, so that a mistyped `--database` does not make an empty one.
    public var creating: Bool
    /// Whether the store serves a long-running process (`portico serve`), tuned for it (SQLite
    /// checkpoints on a background thread).
    public var longRunning: Bool
    /// The most connections a backend with a pool opens (`--database-pool`).
    public var poolSize: Int

    /// Options for opening a store; the defaults are a one-shot command's.
    public init(migrate: Bool = true, creating: Bool = true, longRunning: Bool = false, poolSize: Int = 1) {
        self.migrate = migrate
        self.creating = creating
        self.longRunning = longRunning
        self.poolSize = poolSize
    }
}
