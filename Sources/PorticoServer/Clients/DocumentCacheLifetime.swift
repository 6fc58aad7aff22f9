import Foundation

/// How long a document the provider fetched (a client metadata document, a `jwks_uri`) is used
/// before it is fetched again, from the answer's `Cache-Control` (RFC 9111 §5.2.2).
///
/// Why bounded: the document's server decides within limits only. A floor keeps a document
/// that says `max-age=0` from making every sign-in a fetch at the app's server (the provider
/// as an amplifier); a ceiling keeps a document that says a year from outliving a change at the
/// app for long. `no-store` and `no-cache` are honoured as "not kept": the next use fetches.
struct DocumentCacheLifetime: Equatable {
    /// Lifetime without a `max-age`.
    static let standard: Duration = .seconds(300)
    /// The least time a kept document is kept.
    static let floor: Duration = .seconds(30)
    /// The longest.
    static let ceiling: Duration = .seconds(86_400)

    /// How long to keep the document; zero for not at all.
    let duration: Duration

    /// The lifetime a `Cache-Control` header value gives (nil for no header).
    init(cacheControl: String?) {
        guard let cacheControl else {
            duration = Self.standard
            return
        }
        var maxAge: Int?
        for directive in cacheControl.lowercased().split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
            guard let name = parts.first else { continue }
            if name == "no-store" || name == "no-cache" {
                duration = .zero
                return
            }
            if name == "max-age", parts.count == 2, let seconds = Int(parts[1]), seconds >= 0 { maxAge = seconds }
        }
        guard let maxAge else {
            duration = Self.standard
            return
        }
        duration = min(max(.seconds(maxAge), Self.floor), Self.ceiling)
    }
}
