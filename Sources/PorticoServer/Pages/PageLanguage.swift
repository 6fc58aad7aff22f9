import PorticoHTTP

/// The languages the pages are offered in: English and Simplified Chinese.
///
/// Chosen per request: the app's `ui_locales` (OpenID Connect Core §3.1.2.1) first, because the
/// app knows the language it runs in, then the browser's `Accept-Language`, then English.
enum PageLanguage: String, CaseIterable, Sendable {
    /// English, the default.
    case english = "en"
    /// Simplified Chinese.
    case simplifiedChinese = "zh-Hans"

    /// The language for `tag` (a BCP 47 tag such as `en-GB`, `zh-CN`, `zh-Hans-CN`), or nil when
    /// no page is offered in it.
    ///
    /// Traditional Chinese (`zh-Hant`, `zh-TW`, `zh-HK`, `zh-MO`) is not Simplified Chinese, so
    /// it falls through to the next preference instead of getting the wrong script.
    init?(tag: some StringProtocol) {
        let subtags = tag.lowercased().split(separator: "-").map(String.init)
        guard let primary = subtags.first else { return nil }
        switch primary {
        case "en":
            self = .english
        case "zh":
            let rest = Set(subtags.dropFirst())
            if !rest.contains("hans") && !rest.isDisjoint(with: ["hant", "tw", "hk", "mo"]) { return nil }
            self = .simplifiedChinese
        default:
            return nil
        }
    }

    /// The first supported language of an OpenID Connect `ui_locales` value (space-separated
    /// tags in order of preference), or nil.
    static func preferred(uiLocales: String?) -> PageLanguage? {
        guard let uiLocales else { return nil }
        return uiLocales.split(separator: " ").prefix(16).lazy.compactMap { PageLanguage(tag: $0) }.first
    }

    /// The supported language an `Accept-Language` header (RFC 9110 §12.5.4) prefers most, or
    /// nil. Ranges with `q=0` are refused; ties keep the header's order.
    static func preferred(acceptLanguage: String?) -> PageLanguage? {
        guard let acceptLanguage else { return nil }
        var best: (language: PageLanguage, weight: Double)?
        for range in acceptLanguage.split(separator: ",").prefix(32) {
            let parts = range.split(separator: ";")
            guard let tag = parts.first?.trimmingCharacters(in: .whitespaces),
                let language = PageLanguage(tag: tag)
            else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "q" {
                    weight = Double(pair[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            guard weight > 0 else { continue }
            if let current = best, weight <= current.weight { continue }
            best = (language, weight)
        }
        return best?.language
    }

    /// The language of the page for `request`: `uiLocales` (from the pending authorization or
    /// the query), then `Accept-Language`, then English.
    static func negotiate(uiLocales: String?, acceptLanguage: String?) -> PageLanguage {
        preferred(uiLocales: uiLocales) ?? preferred(acceptLanguage: acceptLanguage) ?? .english
    }

    /// The value for `<html lang>`.
    var htmlTag: String { rawValue }
}

extension Request {
    /// The language of a page answering this request: `pending`, the language a pending
    /// authorization settled on, wins; then the query's `ui_locales`; then `Accept-Language`.
    func pageLanguage(pending: PageLanguage? = nil) -> PageLanguage {
        if let pending { return pending }
        return PageLanguage.negotiate(uiLocales: query["ui_locales"], acceptLanguage: headers["Accept-Language"])
    }
}
