import Foundation
import Testing

/// The DocC catalog that `make docs` builds keeps every article the README points to.
///
/// Why: an article whose file name is also a public symbol's name (`CompanionProtocol.md` and
/// `enum CompanionProtocol`) gets the same page path as the symbol, and DocC drops the article:
/// "The companion protocol" was missing from `make docs` although the README sends people there.
struct DocumentationCatalogTests {
    private static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/PorticoKit")

    @Test func noArticleSharesItsNameWithASymbolAndEachIsLinked() throws {
        let catalog = Self.sources.appendingPathComponent("PorticoKit.docc")
        let articles = try FileManager.default.contentsOfDirectory(atPath: catalog.path)
            .filter { $0.hasSuffix(".md") && $0 != "PorticoKit.md" }.map { String($0.dropLast(3)) }
        #expect(articles.count >= 7)
        var declared: Set<String> = []
        let enumerator = FileManager.default.enumerator(atPath: Self.sources.path)
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: Self.sources.appendingPathComponent(path), encoding: .utf8)
            for match in text.matches(of: /public (?:final )?(?:enum|struct|class|protocol|actor) (\w+)/) {
                declared.insert(String(match.1))
            }
        }
        #expect(declared.contains("CompanionProtocol"))
        let root = try String(contentsOf: catalog.appendingPathComponent("PorticoKit.md"), encoding: .utf8)
        for article in articles {
            #expect(!declared.contains(article), "\(article).md has the page path of the symbol \(article)")
            #expect(root.contains("<doc:\(article)>"), "\(article) is not in the catalog's topics")
        }
    }
}
