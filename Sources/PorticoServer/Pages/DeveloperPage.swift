import Foundation
import PorticoHTTP
import PorticoStore

/// The developer console's pages: the terms, the list of a person's apps, the new-app form,
/// an app's page and its delete confirmation. Every form posts the page's CSRF token.
///
/// Field names are the DESIGN's contract: `accept_terms`; `name`, `app_type`, `redirect_uri`,
/// `web_origin`, `logo_url`, `privacy_url`; buttons `name="action"` with `save`,
/// `rotate_secret` and `delete`.
struct DeveloperPage {
    /// The signed-in person.
    var user: UserRecord
    /// The CSRF token of every form.
    var csrfToken: String
    /// The page's language.
    var language: PageLanguage

    private var text: DeveloperText.Type { DeveloperText.self }

    /// The terms, with the checkbox; `error` when it was posted unticked.
    func terms(error: Bool) -> Response {
        let lang = language
        var html = "<h1>\(text.termsHeading[lang])</h1>\n<p id=\"developer-terms\">\(text.terms[lang])</p>\n"
        html += "<form method=\"post\" action=\"\(DeveloperEndpoint.path)\" novalidate>\n\(csrfField)"
        if error {
            html += "<p class=\"field-error\" id=\"accept_terms-error\">\(text.mustAccept[lang])</p>\n"
        }
        html += """
            <label class="check" for="accept_terms"><input type="checkbox" id="accept_terms" name="accept_terms" \
            value="yes"\(error ? " aria-invalid=\"true\" aria-describedby=\"accept_terms-error\"" : "")> \
            \(text.acceptTerms[lang])</label>
            <div class="actions"><button type="submit" class="button primary">\(text.continueButton[lang])</button></div>
            </form>

            """
        return page(title: text.termsHeading[lang], html, status: error ? .badRequest : .ok)
    }

    /// The person's apps, newest first, with the way to make one; `notice` after a deletion.
    func list(_ apps: [(app: DeveloperApp, client: Client)], notice: Localized?) -> Response {
        let lang = language
        var html = "<h1>\(text.title[lang])</h1>\n"
        if let notice { html += "<div class=\"notice\" role=\"status\"><p>\(notice[lang])</p></div>\n" }
        html += "<p><a class=\"button primary\" id=\"new-app\" href=\"\(DeveloperEndpoint.newPath)\">"
        html += "\(text.newApp[lang])</a></p>\n<h2>\(text.yourApps[lang])</h2>\n"
        if apps.isEmpty {
            html += "<p id=\"no-apps\">\(text.noApps[lang])</p>\n"
        } else {
            html += "<ul class=\"entries\" id=\"apps\">\n"
            for (app, client) in apps {
                let role = app.role == .owner ? text.owner : text.codeveloper
                html += """
                    <li class="entry" data-client-id="\(HTML.escape(client.id))">\
                    <a href="\(DeveloperEndpoint.appPath(client.id))">\(HTML.escape(client.name))</a>
                    <div class="small">\(role[lang]) · \(DeveloperAppForm.AppType(of: client).rawValue)</div></li>

                    """
            }
            html += "</ul>\n"
        }
        return page(title: text.title[lang], html)
    }

    /// The new-app form with `form`'s values and `error`.
    func newApp(_ form: DeveloperAppForm, error: String?) -> Response {
        let lang = language
        var html = "<h1>\(text.newAppTitle[lang])</h1>\n"
        html += "<form method=\"post\" action=\"\(DeveloperEndpoint.newPath)\" novalidate>\n\(csrfField)"
        html += errorBox(error)
        html += DeveloperAppFields(form: form, language: language).html(typeEditable: true)
        html += """
            <div class="actions"><button type="submit" class="button primary">\(text.create[lang])</button></div>
            </form>
            <p><a href="\(DeveloperEndpoint.path)">\(text.back[lang])</a></p>

            """
        return page(title: text.newAppTitle[lang], html, status: error == nil ? .ok : .badRequest)
    }

    /// What an app's page shows.
    struct AppDetails {
        var client: Client
        var app: DeveloperApp
        var people: Int
        /// Sign-ins per day over the last 30 days.
        var signIns: SignInChart
        var form: DeveloperAppForm
        var error: String?
        var secret: String?
        var notice: Localized?
        /// Co-developers (id, e-mail address), for the owner's section.
        var developers: [(id: String, email: String)] = []
        /// What went wrong adding one.
        var developerError: String?
    }

    /// An app's page.
    func app(_ details: AppDetails) -> Response {
        let lang = language
        let client = details.client
        let path = DeveloperEndpoint.appPath(client.id)
        var html = AppHeader.html(for: client, line: text.title[lang]) + "\n"
        html += "<h1>\(HTML.escape(client.name))</h1>\n"
        if let notice = details.notice {
            html += "<div class=\"notice\" role=\"status\"><p>\(notice[lang])</p></div>\n"
        }
        html += "<p><strong>\(text.clientID[lang])</strong>"
        html += "<code class=\"credential\" id=\"client-id\">\(HTML.escape(client.id))</code></p>\n"
        if let secret = details.secret {
            html += """
                <div class="caution" role="note"><p><strong>\(text.clientSecret[lang])</strong>\
                <code class="credential" id="client-secret">\(HTML.escape(secret))</code></p>\
                <p>\(text.secretOnce[lang])</p></div>

                """
        } else if client.type == .public {
            html += "<p class=\"small\">\(text.publicApp[lang])</p>\n"
        }
        html += "<h2>\(text.statusHeading[lang])</h2>\n<p id=\"people\">\(text.people(details.people)[lang])</p>\n"
        if let suspended = client.suspendedAt {
            let when = HTML.escape(AccountPage.format(suspended, language: lang))
            html += "<p class=\"caution\" id=\"app-standing\">\(text.suspended(when)[lang])</p>\n"
        } else if client.isVerified {
            html += "<p id=\"app-standing\">\(text.verified[lang])</p>\n"
        } else {
            html += "<div class=\"caution\" id=\"app-standing\"><p>\(text.unverified[lang])</p></div>\n"
        }
        html += details.signIns.html(in: lang)
        let fields = DeveloperAppFields(form: details.form, language: lang).html(typeEditable: false)
        html += """
            <h2>\(text.previewHeading[lang])</h2>
            <p><a id="preview-en" href="\(path)/preview?lang=en">\(text.previewEnglish[lang])</a></p>
            <p><a id="preview-zh" href="\(path)/preview?lang=zh-CN">\(text.previewChinese[lang])</a></p>
            <h2>\(text.settingsHeading[lang])</h2>
            <form method="post" action="\(path)" novalidate>
            \(csrfField)\(errorBox(details.error))\(fields)\
            <div class="actions"><button type="submit" class="button primary" name="action" value="save">\
            \(text.save[lang])</button></div>
            </form>

            """
        if details.app.role == .owner {
            if client.type == .confidential {
                html += "<h2>\(text.secretHeading[lang])</h2>\n<p class=\"hint\">\(text.rotateHint[lang])</p>\n"
                if let until = client.previousSecretExpiresAt, until > Date() {
                    html += "<p class=\"small\">\(text.previousUntil[lang]) "
                    html += "\(HTML.escape(AccountPage.format(until, language: lang))).</p>\n"
                }
                html += actionForm(path, action: "rotate_secret", label: text.rotate[lang], style: "secondary")
            }
            html += developersSection(details, path: path)
            html += "<h2>\(text.dangerHeading[lang])</h2>\n<p class=\"hint\">\(text.deleteHint[lang])</p>\n"
            html += actionForm(path, action: "delete", label: text.delete[lang], style: "danger")
        }
        html += "<p><a href=\"\(DeveloperEndpoint.path)\">\(text.back[lang])</a></p>\n"
        return page(title: client.name, html, status: details.error == nil ? .ok : .badRequest)
    }

    /// The owner's list of co-developers with Remove buttons, and the form that adds one.
    private func developersSection(_ details: AppDetails, path: String) -> String {
        let lang = language
        var html = "<h2>\(text.developersHeading[lang])</h2>\n<p class=\"hint\">\(text.developersHint[lang])</p>\n"
        if details.developers.isEmpty {
            html += "<p class=\"small\" id=\"no-developers\">\(text.noDevelopers[lang])</p>\n"
        } else {
            html += "<ul class=\"entries\" id=\"developers\">\n"
            for developer in details.developers {
                let email = HTML.escape(developer.email)
                html += """
                    <li class="entry"><span>\(email)</span><form method="post" action="\(path)">\(csrfField)\
                    \(HTML.hiddenField(name: "user_id", value: developer.id))\
                    <button type="submit" class="button secondary compact" name="action" value="remove_developer" \
                    aria-label="\(text.removeDeveloper(email)[lang])">\(text.remove[lang])</button></form></li>

                    """
            }
            html += "</ul>\n"
        }
        var field = FormField(
            name: "email", label: text.developerEmail[lang], type: "email", autocomplete: "off")
        field.error = details.developerError
        html += """
            <form method="post" action="\(path)" novalidate>\(csrfField)\(field.html)\
            <button type="submit" class="button secondary" name="action" value="add_developer">\
            \(text.addDeveloper[lang])</button></form>

            """
        return html
    }

    /// An app as the operator's list shows it.
    struct OperatorRow {
        var client: Client
        var ownerEmail: String?
        var people: Int
    }

    /// The operator's list of every app, newest first.
    func operatorList(_ rows: [OperatorRow]) -> Response {
        let lang = language
        var html = "<h1>\(text.operatorTitle[lang])</h1>\n<p class=\"hint\">\(text.operatorIntro[lang])</p>\n"
        html += "<ul class=\"entries\" id=\"all-apps\">\n"
        for row in rows {
            let owner = row.ownerEmail.map(HTML.escape) ?? text.operatorAdded[lang]
            let verified = row.client.isVerified ? text.yes : text.no
            let suspended = row.client.suspendedAt == nil ? text.no : text.yes
            html += """
                <li class="entry" data-client-id="\(HTML.escape(row.client.id))"><strong>\(HTML.escape(row.client.name))</strong>
                <div class="small">\(HTML.escape(row.client.id))</div>
                <div class="small">\(text.ownerColumn[lang]): \(owner) · \(text.peopleColumn[lang]): \(row.people) · \
                \(text.verifiedColumn[lang]): \(verified[lang]) · \(text.suspendedColumn[lang]): \(suspended[lang])</div></li>

                """
        }
        html += "</ul>\n"
        return page(title: text.operatorTitle[lang], html)
    }

    /// "Delete this app?" with the button that does it.
    func confirmDelete(_ client: Client) -> Response {
        let lang = language
        let path = DeveloperEndpoint.appPath(client.id)
        let html = """
            <h1>\(text.confirmDelete(HTML.escape(client.name))[lang])</h1>
            <p>\(text.confirmDeleteText[lang])</p>
            <form method="post" action="\(path)">
            \(csrfField)\(HTML.hiddenField(name: "confirm", value: "yes"))
            <div class="actions">\
            <button type="submit" class="button danger" name="action" value="delete" id="confirm-delete">\
            \(text.confirmDeleteButton[lang])</button>\
            <a class="button secondary" href="\(path)">\(text.cancel[lang])</a></div>
            </form>

            """
        return page(title: text.confirmDelete(client.name)[lang], html)
    }

    /// "There is no such app", with status 404: for apps that do not exist and for other
    /// people's, alike.
    func notFound() -> Response {
        page(
            title: text.notFound[language],
            "<h1>\(text.notFound[language])</h1>\n<p><a href=\"\(DeveloperEndpoint.path)\">\(text.back[language])</a></p>\n",
            status: .notFound)
    }

    private var csrfField: String {
        HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken) + "\n"
    }

    private func errorBox(_ error: String?) -> String {
        guard let error else { return "" }
        return """
            <div class="field-error" role="alert" id="form-error">\(text.fixErrors[language]) \(HTML.escape(error))</div>

            """
    }

    private func actionForm(_ path: String, action: String, label: String, style: String) -> String {
        """
        <form method="post" action="\(path)">\(csrfField)<button type="submit" class="button \(style)" \
        name="action" value="\(action)">\(label)</button></form>

        """
    }

    private func page(title: String, _ html: String, status: HTTPStatus = .ok) -> Response {
        let account = """
            <div class="account"><span>\(AccountText.signedInAs[language]) \
            <span class="who">\(HTML.escape(user.name))</span></span></div>
            """
        return PageLayout.page(title: title, content: html, account: account, status: status, language: language)
    }
}
