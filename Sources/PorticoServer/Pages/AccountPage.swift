import Foundation
import PorticoHTTP
import PorticoStore

/// Your Account (`GET /account`): the apps this person allowed, with what each may see and a
/// Remove button (`name="revoke"`, the DESIGN's contract), the browsers signed in to this
/// account with "Sign out" for each other one and "Sign out everywhere else", and a Sign out
/// button for this one. Every button posts to `/account` from a form with the CSRF token.
struct AccountPage {
    /// An authorized app as the page lists it.
    struct App {
        /// The app.
        var client: Client
        /// What the person allowed it, remembered.
        var consent: Consent
        /// One plain-words line per granted scope (the consent page's words).
        var permissions: [String]
    }

    /// A signed-in browser as the page lists it.
    struct Device {
        /// The stored session.
        var session: BrowserSession
        /// The opaque value its "Sign out" button posts (never the session id or its hash).
        var handle: String
        /// Whether it is the browser showing the page.
        var isCurrent: Bool
    }

    /// Messages after an action (the query's `done`); a fixed set, so a link cannot put words
    /// on the page.
    enum Notice: String {
        /// An app was removed.
        case removed
        /// Another browser was signed out.
        case signedOut = "signed_out"
        /// Every other browser was signed out.
        case signedOutOthers = "signed_out_others"
        /// A linked account was unlinked.
        case unlinked
        /// The password was changed (and every other browser signed out).
        case passwordChanged = "password_changed"
        /// Two-step verification was turned on (``TwoStepEndpoint``).
        case twoStepOn = "two_step_on"
        /// Two-step verification was turned off (and every other browser signed out).
        case twoStepOff = "two_step_off"

        /// What to say.
        var text: Localized {
            switch self {
            case .removed: AccountText.removed
            case .signedOut: AccountText.signedOutOne
            case .signedOutOthers: AccountText.signedOutOthers
            case .unlinked: LinkedAccountsText.unlinked
            case .passwordChanged: PasswordChangeText.changed
            case .twoStepOn: TwoStepText.turnedOn
            case .twoStepOff: TwoStepText.turnedOff
            }
        }
    }

    /// The signed-in person.
    var user: UserRecord
    /// Their authorized apps, latest grant first.
    var apps: [App]
    /// Their live sessions, newest first.
    var devices: [Device]
    /// The CSRF token for every form on the page.
    var csrfToken: String
    /// What the last action did.
    var notice: Notice?
    /// The language of the page.
    var language: PageLanguage
    /// The accounts linked at host apps.
    var linkedAccounts = LinkedAccountsSection(entries: [])
    /// Their live companion sessions (``AccountCompanions``).
    var companions: [CompanionSession] = []
    /// Two-step verification's state (``TwoStepSection``).
    var twoStep = TwoStepSection(enabled: false, remainingCodes: 0)
    /// Their passkeys (``PasskeySection``).
    var passkeys = PasskeySection(credentials: [])

    /// The page as a response.
    func response() -> Response {
        var html = "<h1>\(AccountText.title[language])</h1>\n"
        html += "<p class=\"lead\">\(HTML.escape(user.name)) · \(HTML.escape(user.email))</p>\n"
        if let notice { html += "<div class=\"notice\" role=\"status\">\(notice.text[language])</div>\n" }
        html += "<h2 id=\"apps\">\(AccountText.appsHeading[language])</h2>\n"
        if apps.isEmpty {
            html += "<p class=\"small\" id=\"no-apps\">\(AccountText.noApps[language])</p>\n"
        } else {
            html += "<p class=\"small\">\(AccountText.appsIntro[language])</p>\n<ul class=\"entries\">\n"
            for app in apps { html += entry(for: app) }
            html += "</ul>\n"
        }
        html += linkedAccounts.html(language: language)
        html += "<h2 id=\"devices\">\(AccountText.devicesHeading[language])</h2>\n<ul class=\"entries\">\n"
        for device in devices { html += entry(for: device) }
        html += "</ul>\n"
        if devices.contains(where: { !$0.isCurrent }) {
            html += form(
                button: "end_others", value: "1", label: AccountText.signOutOthers[language], style: "secondary")
        }
        html += AccountCompanions.section(companions, csrfToken: csrfToken, language: language)
        html += "<h2 id=\"security\">\(AccountText.securityHeading[language])</h2>\n"
        html += "<p><a href=\"\(PasswordChangeEndpoint.path)\" id=\"change-password\">"
        html +=
            "\((user.passwordHash.isEmpty ? PasswordChangeText.setTitle : PasswordChangeText.link)[language])</a></p>\n"
        html += twoStep.html(language: language)
        html += passkeys.html(csrfToken: csrfToken, language: language)
        html += dataSection()
        html += form(
            button: "sign_out", value: "1", label: AccountText.signOut[language], style: "secondary", id: "sign-out")
        let account = """
            <div class="account"><span>\(AccountText.signedInAs[language]) \
            <span class="who">\(HTML.escape(user.name))</span></span></div>
            """
        return PageLayout.page(title: AccountText.title[language], content: html, account: account, language: language)
    }

    /// "Download your data" (a form posting the page's CSRF token) and the way to "Close your
    /// account".
    private func dataSection() -> String {
        let text = AccountCloseText.self
        return """
            <h2 id="your-data">\(text.sectionHeading[language])</h2>
            <p class="small">\(text.downloadHint[language])</p>
            <form method="post" action="\(DataDownloadEndpoint.path)">\
            \(HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken))\
            <button type="submit" class="button secondary" id="data-download">\(text.download[language])</button></form>
            <p class="small">\(text.closeHint[language])</p>
            <p><a href="\(AccountCloseEndpoint.path)" id="account-close">\(text.close[language])</a></p>

            """
    }

    private func entry(for app: App) -> String {
        let first = Self.format(app.consent.createdAt, language: language)
        let last = Self.format(app.consent.updatedAt, language: language)
        var html = """
            <li class="entry" data-client-id="\(HTML.escape(app.client.id))">
            \(AppHeader.html(for: app.client, line: AccountText.allowed(first: first, last: last)[language]))
            <p class="small">\(AccountText.mayLabel[language])</p>
            <ul class="permissions">

            """
        for line in app.permissions { html += "<li>\(HTML.escape(line))</li>\n" }
        html += "</ul>\n"
        html += form(
            button: "revoke", value: app.client.id, label: AccountText.remove[language], style: "secondary",
            ariaLabel: AccountText.removeApp(app.client.name)[language])
        return html + "</li>\n"
    }

    private func entry(for device: Device) -> String {
        let session = device.session
        let name = UserAgentSummary.describe(session.userAgent, language: language)
        var details = [
            session.ipAddress ?? AccountText.unknownAddress[language],
            AccountText.signedIn(Self.format(session.createdAt, language: language))[language],
            AccountText.lastSeen(Self.format(session.lastSeenAt, language: language))[language],
        ]
        if session.isPersistent { details.append(AccountText.kept[language]) }
        var html = "<li class=\"entry device\"\(device.isCurrent ? " id=\"this-device\"" : "")>\n"
        html += "<div><strong>\(HTML.escape(name))</strong>"
        if device.isCurrent { html += " <span class=\"badge\">\(AccountText.thisDevice[language])</span>" }
        html += "</div>\n<div class=\"small\">\(HTML.escape(details.joined(separator: " · ")))</div>\n"
        if !device.isCurrent {
            html += form(
                button: "end_session", value: device.handle, label: AccountText.signOutThat[language],
                style: "secondary compact", ariaLabel: AccountText.signOutDevice(name)[language])
        }
        return html + "</li>\n"
    }

    private func form(
        button name: String, value: String, label: String, style: String, ariaLabel: String? = nil, id: String? = nil
    ) -> String {
        let aria = ariaLabel.map { " aria-label=\"\(HTML.escape($0))\"" } ?? ""
        let identifier = id.map { " id=\"\(HTML.escape($0))\"" } ?? ""
        return """
            <form method="post" action="\(AccountEndpoint.path)">\
            \(HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken))\
            <button type="submit" class="button \(style)" name="\(name)" value="\(HTML.escape(value))"\
            \(aria)\(identifier)>\(HTML.escape(label))</button></form>

            """
    }

    /// A time as people read it, in UTC, the same on every node.
    static func format(_ date: Date, language: PageLanguage) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        switch language {
        case .english: formatter.dateFormat = "d MMM yyyy, HH:mm 'UTC'"
        case .simplifiedChinese: formatter.dateFormat = "yyyy'年'M'月'd'日' HH:mm 'UTC'"
        }
        return formatter.string(from: date)
    }
}
