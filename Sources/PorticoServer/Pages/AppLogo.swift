import PorticoStore

/// An app's logo as the consent, "Continue as" and Your Account pages show it.
enum AppLogo {
    /// The logo from an https URL (the only images the CSP admits besides our own), or a
    /// neutral tile with the app's initial.
    static func html(for client: Client) -> String {
        if let url = client.logoURL, HTML.isSafeLink(url, allowHTTP: false) {
            return #"<img class="app-logo" src="\#(HTML.escape(url))" alt="\#(HTML.escape(client.name)) logo">"#
        }
        let initial = client.name.first.map { String($0).uppercased() } ?? "?"
        return #"<div class="app-placeholder" aria-hidden="true">\#(HTML.escape(initial))</div>"#
    }
}
