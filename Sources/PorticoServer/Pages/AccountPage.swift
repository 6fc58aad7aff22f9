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

        var text: String {
            switch self {
            case .removed: Words.removed
            case .signedOut: Words.signedOutOne
            case .signedOutOthers: Words.signedOutOthers
            }
        }
    }

    /// The page's words, in one place for translation.
    enum Words {
        static let title = "Your Account"
        static let appsHeading = "Apps you allowed"
        static let noApps = "You have not allowed any app to use your \(PageLayout.platformName) account."
        static let appsIntro =
            "These apps can sign you in with \(PageLayout.platformName) and see what is listed. Removing one "
            + "takes its access away; it asks you again the next time you use it."
        static func firstAllowed(_ first: String, _ last: String) -> String {
            first == last ? "Allowed \(first)" : "First allowed \(first) · last \(last)"
        }
        static let mayLabel = "It may:"
        static func remove(_ app: String) -> String { "Remove \(app)" }
        static let remove = "Remove"
        static let devicesHeading = "Where you are signed in"
        static let thisDevice = "This device"
        static let kept = "Kept signed in"
        static func signedIn(_ when: String) -> String { "Signed in \(when)" }
        static func lastSeen(_ when: String) -> String { "last seen \(when)" }
        static let unknownAddress = "unknown address"
        static let signOutThat = "Sign out"
        static func signOutThatLabel(_ device: String) -> String { "Sign out \(device)" }
        static let signOutOthers = "Sign out everywhere else"
        static let signOut = "Sign out"
        static let removed = "The app was removed. It can no longer see your information."
        static let signedOutOne = "That device was signed out."
        static let signedOutOthers = "Every other device was signed out."
        static let signedInAs = "Signed in as"
    }

    /// The signed-in person.
    var user: User
    /// Their authorized apps, latest grant first.
    var apps: [App]
    /// Their live sessions, newest first.
    var devices: [Device]
    /// The CSRF token for every form on the page.
    var csrfToken: String
    /// What the last action did.
    var notice: Notice?

    /// The page as a response.
    func response() -> Response {
        var html = "<h1>\(HTML.escape(Words.title))</h1>\n"
        html += "<p class=\"lead\">\(HTML.escape(user.name)) · \(HTML.escape(user.email))</p>\n"
        if let notice { html += "<div class=\"notice\" role=\"status\">\(HTML.escape(notice.text))</div>\n" }
        html += "<h2 id=\"apps\">\(HTML.escape(Words.appsHeading))</h2>\n"
        if apps.isEmpty {
            html += "<p class=\"small\" id=\"no-apps\">\(HTML.escape(Words.noApps))</p>\n"
        } else {
            html += "<p class=\"small\">\(HTML.escape(Words.appsIntro))</p>\n<ul class=\"entries\">\n"
            for app in apps { html += entry(for: app) }
            html += "</ul>\n"
        }
        html += "<h2 id=\"devices\">\(HTML.escape(Words.devicesHeading))</h2>\n<ul class=\"entries\">\n"
        for device in devices { html += entry(for: device) }
        html += "</ul>\n"
        if devices.contains(where: { !$0.isCurrent }) {
            html += form(button: "end_others", value: "1", label: Words.signOutOthers, style: "secondary")
        }
        html += form(button: "sign_out", value: "1", label: Words.signOut, style: "secondary", id: "sign-out")
        let account = """
            <div class="account"><span>\(HTML.escape(Words.signedInAs)) \
            <span class="who">\(HTML.escape(user.name))</span></span></div>
            """
        return PageLayout.page(title: Words.title, content: html, account: account)
    }

    private func entry(for app: App) -> String {
        let first = Self.format(app.consent.createdAt)
        let last = Self.format(app.consent.updatedAt)
        var html = """
            <li class="entry" data-client-id="\(HTML.escape(app.client.id))">
            <div class="app">\(AppLogo.html(for: app.client))<div><div class="app-name">\(HTML.escape(app.client.name))\
            </div><div class="small">\(HTML.escape(Words.firstAllowed(first, last)))</div></div></div>
            <p class="small">\(HTML.escape(Words.mayLabel))</p>
            <ul class="permissions">

            """
        for line in app.permissions { html += "<li>\(HTML.escape(line))</li>\n" }
        html += "</ul>\n"
        html += form(
            button: "revoke", value: app.client.id, label: Words.remove, style: "secondary",
            ariaLabel: Words.remove(app.client.name))
        return html + "</li>\n"
    }

    private func entry(for device: Device) -> String {
        let session = device.session
        let name = UserAgentSummary.describe(session.userAgent)
        var details = [
            session.ipAddress ?? Words.unknownAddress, Words.signedIn(Self.format(session.createdAt)),
            Words.lastSeen(Self.format(session.lastSeenAt)),
        ]
        if session.isPersistent { details.append(Words.kept) }
        var html = "<li class=\"entry device\"\(device.isCurrent ? " id=\"this-device\"" : "")>\n"
        html += "<div><strong>\(HTML.escape(name))</strong>"
        if device.isCurrent { html += " <span class=\"badge\">\(HTML.escape(Words.thisDevice))</span>" }
        html += "</div>\n<div class=\"small\">\(HTML.escape(details.joined(separator: " · ")))</div>\n"
        if !device.isCurrent {
            html += form(
                button: "end_session", value: device.handle, label: Words.signOutThat, style: "secondary compact",
                ariaLabel: Words.signOutThatLabel(name))
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
    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "d MMM yyyy, HH:mm 'UTC'"
        return formatter.string(from: date)
    }
}
