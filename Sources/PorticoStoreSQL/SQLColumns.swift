import PorticoStore

/// The names of one statement's result columns, and where each stands.
///
/// Decoders read a column by its name (`row.text("client_id")`), so that adding, removing or
/// reordering a column in a `SELECT` cannot silently shift what every later reader gets: a name
/// the statement does not return is a thrown ``StoreError/misuse(_:)`` naming the column and the
/// statement, and so is a name it returns twice.
///
/// A backend builds one of these once per prepared statement (SQLite when it prepares it,
/// PostgreSQL from the statement's first result) and hands it to every row, so resolving a name
/// asks nothing of the engine. Decoders read columns in about the order the statement lists them,
/// so the lookup first tries the column after the one it found last (one comparison of two short
/// strings), and only when that is not it scans the list (at most a few dozen names).
///
/// Not thread-safe, like the connection that owns it: the position of the last name found is
/// kept here, and a connection runs one statement at a time.
public final class SQLColumns {
    /// The result's column names, in the statement's order.
    public let names: [String]

    /// The statement, for the message of a name it does not return.
    public let statement: String

    /// Names that stand more than once (`f.id` and `u.id` both come back as `id`); looking one up
    /// is refused, because either answer would be a guess.
    @usableFromInline let ambiguousNames: Set<String>

    /// Whether no name stands twice, so that the lookup need not ask ``ambiguousNames``.
    @usableFromInline let namesAreUnique: Bool

    /// The position after the column found last: where the next lookup looks first. Unchecked for
    /// overlapping access, which halves the cost of a lookup (no runtime exclusivity check on
    /// each read and write): only ``index(of:)`` and its scan touch it, one statement's rows at a
    /// time on the connection's one thread, and neither calls out while it is accessed.
    @exclusivity(unchecked) @usableFromInline var next = 0

    /// Takes the names as the engine reports them for `statement`.
    public init(names: [String], statement: String) {
        self.names = names
        self.statement = statement
        var seen: Set<String> = []
        var ambiguous: Set<String> = []
        for name in names where !seen.insert(name).inserted { ambiguous.insert(name) }
        ambiguousNames = ambiguous
        namesAreUnique = ambiguous.isEmpty
    }

    /// The position of the column called `name`; throws ``StoreError/misuse(_:)`` naming the
    /// column and the statement when the statement returns no such column, or more than one.
    @inlinable public func index(of name: String) throws -> Int32 {
        if next < names.count, names[next] == name, namesAreUnique {
            next += 1
            return Int32(truncatingIfNeeded: next - 1)
        }
        return try search(name)
    }

    /// The scan behind ``index(of:)`` when the column is not the one after the last found.
    @usableFromInline func search(_ name: String) throws -> Int32 {
        guard let position = names.firstIndex(of: name), namesAreUnique || !ambiguousNames.contains(name)
        else {
            throw StoreError.misuse(
                names.contains(name)
                    ? "column '\(name)' is returned more than once by: \(Self.oneLine(statement))"
                    : "no column '\(name)' in the result of: \(Self.oneLine(statement))")
        }
        next = position + 1
        return Int32(truncatingIfNeeded: position)
    }

    /// The statement on one line with its runs of white space collapsed, as a log line wants it.
    static func oneLine(_ statement: String) -> String {
        statement.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
