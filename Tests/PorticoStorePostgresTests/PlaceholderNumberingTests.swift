import Testing

@testable import PorticoStorePostgres

/// The store writes SQL with `?` placeholders, as for SQLite; PostgreSQL's are `$1`, `$2`, …
/// (numbered byte by byte, which must not disturb text around them).
struct PlaceholderNumberingTests {
    @Test func placeholdersAreNumberedInOrder() {
        #expect(
            PostgresTransaction.numbered("SELECT a FROM t WHERE b = ? AND c = ?")
                == "SELECT a FROM t WHERE b = $1 AND c = $2")
        let twelve = (1...12).map { _ in "?" }.joined(separator: ", ")
        #expect(
            PostgresTransaction.numbered("VALUES (\(twelve))")
                == "VALUES (\((1...12).map { "$\($0)" }.joined(separator: ", ")))")
    }

    @Test func textAroundThemIsKeptAsItIs() {
        let plain = "SELECT 'é', '中文', \"名\" FROM t"
        #expect(PostgresTransaction.numbered(plain) == plain)
        #expect(PostgresTransaction.numbered("SELECT 'é' || ? || '中文'\n, ?") == "SELECT 'é' || $1 || '中文'\n, $2")
        #expect(PostgresTransaction.numbered("") == "")
    }
}
