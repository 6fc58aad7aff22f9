import PorticoHTTP

/// The frame every page shares (brand bar, centered card, legal footer) and the headers that
/// protect it.
///
/// Pages render only their card's content; this puts it into one accessible, mobile-first
/// document and adds the security headers in one place, so no page can forget them.
enum PageLayout {
    /// The platform's name as people see it in the brand bar and titles.
    static let platformName = "Portico"

    /// The Content-Security-Policy of every page: only our own stylesheet and script, app logos
    /// from any https origin, no framing (clickjacking), no plugins, no `<base>` tricks.
    ///
    /// There is deliberately no `form-action`: browsers apply it to the redirect that follows a
    /// form post, which would block sending the person back to the app's redirect URI.
    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' https: data:; style-src 'self'; script-src 'self'; "
        + "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

    /// A complete HTML page.
    ///
    /// - Parameters:
    ///   - title: the document title (escaped here).
    ///   - content: the card's markup, already escaped by the caller.
    ///   - account: optional markup for the brand bar's right side (the signed-in person).
    ///   - status: the HTTP status.
    ///   - language: the page's language, for `<html lang>` and the frame's own words.
    static func page(
        title: String, content: String, account: String = "", status: HTTPStatus = .ok, language: PageLanguage
    ) -> Response {
        let html = """
            <!doctype html>
            <html lang="\(language.htmlTag)" class="no-js">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <title>\(HTML.escape(title)) – \(platformName)</title>
            <link rel="stylesheet" href="\(Assets.stylesheetURL)">
            <script src="\(Assets.scriptURL)" defer></script>
            </head>
            <body>
            <header class="topbar">
            <span class="brand"><span class="brand-mark" aria-hidden="true">P</span>\(platformName)</span>
            \(account)
            </header>
            <main>
            <div class="card">
            \(content)
            </div>
            <footer class="legal">
            <a href="/terms">\(LayoutText.terms[language])</a><a href="/privacy">\(LayoutText.privacy[language])</a>\
            <a href="/help">\(LayoutText.help[language])</a>
            <div>© \(platformName)</div>
            </footer>
            </main>
            </body>
            </html>

            """
        return secured(.html(html, status: status))
    }

    /// `response` with the headers every page and page redirect carries: CSP, no sniffing, no
    /// referrer (authorization codes and request tokens travel in URLs), no framing, and no
    /// caching of per-person content.
    static func secured(_ response: Response) -> Response {
        var response = response
        response.headers["Content-Security-Policy"] = contentSecurityPolicy
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Cache-Control"] = "no-store"
        response.headers["Pragma"] = "no-cache"
        return response
    }

    /// A redirect with the page headers; `status` is 302 after a GET and 303 after a form post.
    static func redirect(to location: String, status: HTTPStatus = .found) -> Response {
        secured(.redirect(to: location, status: status))
    }
}
