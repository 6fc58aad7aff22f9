import PorticoStore

/// An app as the consent, "Continue as" and device pages show it at the top, and Your Account
/// in each of its entries: its logo, its name, and one line under the name (already localised
/// and escaped by the page). One place, so the pages cannot drift apart.
enum AppHeader {
    /// The header of `client` with `line` under its name, without a trailing newline.
    static func html(for client: Client, line: String) -> String {
        "<div class=\"app\">\(AppLogo.html(for: client))<div><div class=\"app-name\">\(HTML.escape(client.name))</div>"
            + "<div class=\"small\">\(line)</div></div></div>"
    }
}
