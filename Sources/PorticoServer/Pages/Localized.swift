/// One piece of page text in every language pages are offered in.
///
/// Why a struct with a field per language rather than string tables: a page cannot ship with a
/// missing translation (it does not compile), and the two texts sit side by side where the
/// page's words are defined, so they are reviewed together. Text with values in it is a static
/// function returning a `Localized`, so each language can put the value where its grammar
/// wants it.
struct Localized: Sendable, Equatable {
    /// The English text.
    let english: String
    /// The Simplified Chinese text.
    let simplifiedChinese: String

    /// A text in both languages.
    init(_ english: String, zh simplifiedChinese: String) {
        self.english = english
        self.simplifiedChinese = simplifiedChinese
    }

    /// The text in `language`.
    subscript(_ language: PageLanguage) -> String {
        switch language {
        case .english: english
        case .simplifiedChinese: simplifiedChinese
        }
    }
}
