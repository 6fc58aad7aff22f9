import Foundation
import PorticoHTTP
import PorticoStore
import PorticoStoreSQLite
import Testing

/// What fuzzing found, each pinned by a plain test (the inputs are also in `fuzz/corpus`).
@Suite struct FuzzFindingTests {
    /// `name ==fir` was the cookie `name ` (trailing space), so a lookup of `name` missed it.
    @Test func cookieNamesAndValuesLoseSurroundingWhiteSpace() {
        let request = Request(
            method: .get, path: "/", headers: ["Cookie": "name ==fir;  theme =\t dark ; = nameless; x=1"])
        #expect(request.cookies == ["name": "=fir", "theme": "dark", "x": "1"])
    }

    /// U+0600 (a "prepend" character) joins the `;` or `=` after it into one grapheme, so a
    /// Character-based split hid the separator: `x=1\u{600};session=abc` had no `session`.
    @Test func cookieSeparatorsAreFoundAfterAnyCharacter() {
        let request = Request(method: .get, path: "/", headers: ["Cookie": "x=1\u{600};session=abc; a\u{600}=v"])
        #expect(request.cookies == ["x": "1\u{600}", "session": "abc", "a\u{600}": "v"])
    }

    /// `sqlite://///a` names the path `///a`; its description was `sqlite:///a`, which is `/a`.
    @Test func databasePathWithLeadingDoubleSlashDescribesItself() throws {
        StoreBackends.register(SQLiteBackend())
        let url = try DatabaseURL(parsing: "sqlite://///v/portico.db")
        #expect(SQLiteBackend.path(of: url) == "///v/portico.db")
        #expect(try DatabaseURL(parsing: url.description) == url)
        #expect(try DatabaseURL(parsing: "sqlite:/var/lib/p.db").description == "sqlite:/var/lib/p.db")
    }
}
