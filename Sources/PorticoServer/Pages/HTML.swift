/// Escaping for server-rendered HTML.
///
/// Every value a page shows (app names, e-mail addresses, error words, hidden-field tokens)
/// goes through ``escape(_:)`` on its way into markup, so input can never become markup: a
/// client named `<script>` is shown as text, and an attribute value cannot break out of its
/// quotes.
///
/// Public so that an app served beside the provider (the demo, in PorticoDemo) renders with
/// the very same escaping rather than a copy of it.
public enum HTML {
    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references; safe both as
    /// element content and inside a double- or single-quoted attribute value.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// A hidden form field; name and value are escaped.
    public static func hiddenField(name: String, value: String) -> String {
        #"<input type="hidden" name="\#(escape(name))" value="\#(escape(value))">"#
    }

    /// Whether `url` may be rendered as a link or image source: only absolute `https:` URLs
    /// (and `http:` ones when `allowHTTP`), so a stored `javascript:` URL never becomes a link.
    static func isSafeLink(_ url: String, allowHTTP: Bool = true) -> Bool {
        let lowered = url.lowercased()
        return lowered.hasPrefix("https://") || (allowHTTP && lowered.hasPrefix("http://"))
    }
}
