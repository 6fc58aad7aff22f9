/// What SQLite and PostgreSQL spell differently in the statements both run, and nothing else.
///
/// Most of the store's SQL is the same on both engines: `?` placeholders (the PostgreSQL
/// backend numbers them `$1`, `$2`, … as it sends a statement), `INSERT … ON CONFLICT … DO
/// UPDATE SET … = excluded.…`, `RETURNING`, `IS NULL`; blobs and `bytea` are both bound as
/// ``SQLValue/bytes(_:)``. What is left: how a boolean column is written in the SQL text (SQLite
/// keeps booleans as the integers 0 and 1, PostgreSQL as `boolean`, and a partial unique index's
/// predicate, which an `ON CONFLICT` target must repeat, is spelled as the schema spells it), and
/// row locks, which only PostgreSQL takes. Values are never spelled here: they are bound as
/// ``SQLValue``s.
public struct SQLDialect: Sendable {
    /// Whether boolean columns are integers (0 and 1) rather than a boolean type.
    public let keepsBooleansAsIntegers: Bool

    /// What ends a subquery that chooses rows to claim (the outbox): PostgreSQL locks them and
    /// skips rows another transaction's claim holds (` FOR UPDATE SKIP LOCKED`), so that nodes
    /// claiming at once neither wait nor lease one message twice; SQLite needs nothing, its single
    /// writer already lets one claim run at a time.
    public let claimLock: String

    /// Makes a dialect; a backend has one, as a constant.
    public init(keepsBooleansAsIntegers: Bool, claimLock: String) {
        self.keepsBooleansAsIntegers = keepsBooleansAsIntegers
        self.claimLock = claimLock
    }

    /// SQLite's spelling.
    public static let sqlite = SQLDialect(keepsBooleansAsIntegers: true, claimLock: "")

    /// PostgreSQL's spelling.
    public static let postgres = SQLDialect(keepsBooleansAsIntegers: false, claimLock: " FOR UPDATE SKIP LOCKED")

    /// The literal for true in the SQL text.
    public var trueLiteral: String { keepsBooleansAsIntegers ? "1" : "true" }

    /// The literal for false in the SQL text.
    public var falseLiteral: String { keepsBooleansAsIntegers ? "0" : "false" }

    /// The condition that a boolean column is true, as the schemas' partial indexes spell it
    /// (`is_current = 1` on SQLite, `is_current` on PostgreSQL), so that an `ON CONFLICT`
    /// target matches the index.
    public func isTrue(_ column: String) -> String {
        keepsBooleansAsIntegers ? "\(column) = 1" : column
    }
}
