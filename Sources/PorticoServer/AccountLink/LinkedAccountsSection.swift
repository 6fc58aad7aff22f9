import Foundation
import PorticoStore

/// Your Account's "Linked accounts": every host app the person linked their account at, when,
/// and the mini-programs that use their sign-in through it, each with Unlink, which leads to a
/// confirmation page (``UnlinkEndpoint``) rather than acting at once: unlinking signs the host
/// and all its mini-programs out.
struct LinkedAccountsSection {
    /// One linked host as the section lists it.
    struct Entry {
        /// The link.
        var link: AccountLink
        /// The host app.
        var host: Client
        /// The names of its enabled mini-programs.
        var miniPrograms: [String]
    }

    /// The person's links, oldest first.
    var entries: [Entry]

    /// The links of `userID` whose host still exists.
    static func load(userID: String, in transaction: any StoreTransaction) throws -> LinkedAccountsSection {
        var entries: [Entry] = []
        for link in try transaction.accountLinks(platformUserID: userID) {
            guard let host = try transaction.client(id: link.hostClientID) else { continue }
            var names: [String] = []
            for miniProgram in try transaction.miniPrograms(hostClientID: host.id) where miniProgram.isEnabled {
                if let client = try transaction.client(id: miniProgram.clientID) { names.append(client.name) }
            }
            entries.append(Entry(link: link, host: host, miniPrograms: names))
        }
        return LinkedAccountsSection(entries: entries)
    }

    /// The section's markup; empty when nothing is linked (most people link nothing).
    func html(language: PageLanguage) -> String {
        guard !entries.isEmpty else { return "" }
        let text = LinkedAccountsText.self
        var html = "<h2 id=\"linked-accounts\">\(text.heading[language])</h2>\n"
        html += "<p class=\"small\">\(text.intro[language])</p>\n<ul class=\"entries\">\n"
        for entry in entries {
            let since = AccountPage.format(entry.link.createdAt, language: language)
            html += """
                <li class="entry linked-account" data-link-id="\(HTML.escape(entry.link.id))">
                \(AppHeader.html(for: entry.host, line: text.linkedSince(since)[language]))

                """
            if entry.miniPrograms.isEmpty {
                html += "<p class=\"small\">\(text.noMiniPrograms[language])</p>\n"
            } else {
                html += "<p class=\"small\">\(text.miniProgramsLabel[language])</p>\n<ul class=\"permissions\">\n"
                for miniProgram in entry.miniPrograms { html += "<li>\(HTML.escape(miniProgram))</li>\n" }
                html += "</ul>\n"
            }
            let target = AuthorizationResponse.location(UnlinkEndpoint.path, [(UnlinkEndpoint.field, entry.link.id)])
            html += """
                <a class="button secondary" href="\(HTML.escape(target))" \
                aria-label="\(HTML.escape(text.unlinkApp(entry.host.name)[language]))">\(text.unlink[language])</a>
                </li>

                """
        }
        return html + "</ul>\n"
    }
}
