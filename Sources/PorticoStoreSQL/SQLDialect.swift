/// What SQLite and PostgreSQL spell differently in the statements both run, and nothing else.
///
/// Most of the store's SQL is the same on both engines: `?` placeholders (the PostgreSQL
/// backend numbers them `$1`, `$2`, … as it sends a statement), `INSERT … AS alias … ON CONFLICT
/// … DO UPDATE SET … = excluded.…`, `RETURNING`, `IS NULL`; blobs and `bytea` are both bound as
/// ``SQLValue/bytes(_:)``. What is left is here: how a boolean column is written in the SQL text
/// (SQLite keeps booleans as the integers 0 and 1, PostgreSQL as `boolean`), a parameter whose
/// type PostgreSQL cannot infer, the NULL-safe comparison, the larger of two values, and row
/// and key locks, which only PostgreSQL takes. Values are never spelled here: they are bound as
/// ``SQLValue``s.
public struct SQLDialect: Sendable {
    /// Whether boolean columns are integers (0 and 1) rather than a boolean type.
    public let keepsBooleansAsIntegers: Bool

    /// A parameter that is a boolean where the statement alone does not say so (`(? OR …)`):
    /// PostgreSQL needs the type (`?::boolean`), SQLite takes any value.
    public let booleanParameter: String

    /// A parameter that is an integer (a time, in whole seconds) where the statement alone does
    /// not say so (`COALESCE(?, …)`, a NULL-safe comparison): `?::bigint` on PostgreSQL.
    public let integerParameter: String

    /// The comparison that holds for two NULLs too, so that "never set" is a value a
    /// compare-and-swap can expect: `IS` on SQLite, `IS NOT DISTINCT FROM` on PostgreSQL.
    public let nullSafeEqual: String

    /// The function that returns the larger of its arguments: `max` on SQLite, `GREATEST` on
    /// PostgreSQL (whose `max` is only an aggregate).
    public let greatest: String

    /// What ends a subquery that chooses rows to claim (the outbox): PostgreSQL locks them and
    /// skips rows another transaction's claim holds (` FOR UPDATE SKIP LOCKED`), so that nodes
    /// claiming at once neither wait nor lease one message twice; SQLite needs nothing, its single
    /// writer already lets one claim run at a time.
    public let claimLock: String

    /// A statement that holds a lock on one key (bound as a SHA-256 digest) until the
    /// transaction ends, so that read-count-then-insert on that key is atomic across nodes:
    /// PostgreSQL's transaction-scoped advisory lock on the digest's first 64 bits. Empty on
    /// SQLite, whose single writer already runs one such transaction at a time.
    public let keyLock: String

    /// Makes a dialect; a backend has one, as a constant.
    public init(
        keepsBooleansAsIntegers: Bool, booleanParameter: String, integerParameter: String, nullSafeEqual: String,
        greatest: String, claimLock: String, keyLock: String
    ) {
        self.keepsBooleansAsIntegers = keepsBooleansAsIntegers
        self.booleanParameter = booleanParameter
        self.integerParameter = integerParameter
        self.nullSafeEqual = nullSafeEqual
        self.greatest = greatest
        self.claimLock = claimLock
        self.keyLock = keyLock
    }

    /// SQLite's spelling.
    public static let sqlite = SQLDialect(
        keepsBooleansAsIntegers: true, booleanParameter: "?", integerParameter: "?", nullSafeEqual: "IS",
        greatest: "max", claimLock: "", keyLock: "")

    /// PostgreSQL's spelling.
    public static let postgres = SQLDialect(
        keepsBooleansAsIntegers: false, booleanParameter: "?::boolean", integerParameter: "?::bigint",
        nullSafeEqual: "IS NOT DISTINCT FROM", greatest: "GREATEST", claimLock: " FOR UPDATE SKIP LOCKED",
        keyLock: """
            SELECT count(*) AS held FROM (
                SELECT pg_advisory_xact_lock(('x' || substr(encode(?, 'hex'), 1, 16))::bit(64)::bigint)) AS lock
            """)

    /// The literal for true in the SQL text.
    public var trueLiteral: String { keepsBooleansAsIntegers ? "1" : "true" }

    /// The condition that a boolean column is true, as the schemas' partial indexes spell it
    /// (`is_current = 1` on SQLite, `is_current` on PostgreSQL), so that an `ON CONFLICT`
    /// target matches the index.
    public func isTrue(_ column: String) -> String {
        keepsBooleansAsIntegers ? "\(column) = 1" : column
    }
}
