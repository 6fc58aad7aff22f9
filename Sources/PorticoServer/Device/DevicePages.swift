import PorticoHTTP
import PorticoStore

/// The pages of a device login at `/device`, in the order a person meets them: enter the code
/// from the TV, (sign in,) confirm the app and the code, and the result.
///
/// Like Login with Amazon's code page, the consent names the app *and* says it is for a TV or
/// device, and shows the code again so the person can check it matches the screen in front of
/// them: the one defence against someone who sends a victim their own code (RFC 8628 §5.4).
/// Every sentence is in ``DeviceText``, in each page language.
enum DevicePages {
    /// Why the code-entry page is shown again.
    enum EntryProblem: Equatable {
        /// Nothing typed.
        case empty
        /// No live device login has that code (never existed, expired, or already decided).
        case unknownCode
        /// The code expired or was decided while the person was signing in or deciding.
        case noLongerValid(appName: String)
    }

    /// The code-entry page; `typed` is shown back after a mistake.
    static func entry(csrfToken: String, typed: String = "", problem: EntryProblem? = nil, language: PageLanguage)
        -> Response
    {
        let text = DeviceText.self
        let lang = language
        var html = "<h1>\(HTML.escape(text.entryTitle[lang]))</h1>\n"
        html += "<p class=\"lead\">\(HTML.escape(text.entryLead[lang]))</p>\n"
        if let problem {
            let (title, message) = text.words(for: problem)
            html += """
                <div class="alert" role="alert" id="code-error"><strong>\(HTML.escape(title[lang]))</strong>\
                \(HTML.escape(message[lang]))</div>

                """
        }
        let described = problem == nil ? "code-help" : "code-error code-help"
        html += """
            <form method="post" action="\(AuthorizationFlow.devicePath)">
            \(HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken))
            <label for="user_code">\(HTML.escape(text.codeLabel[lang]))</label>
            <input type="text" id="user_code" name="user_code" class="code-input" value="\(HTML.escape(typed))" \
            autocomplete="one-time-code" autocapitalize="characters" autocorrect="off" spellcheck="false" \
            maxlength="32" placeholder="XXXX-XXXX" required aria-describedby="\(described)"\
            \(problem == nil ? "" : #" aria-invalid="true""#)>
            <p class="small" id="code-help">\(HTML.escape(text.codeHelp[lang]))</p>
            <button type="submit" class="button primary">\(HTML.escape(text.continueButton[lang]))</button>
            </form>
            <details>
            <summary>\(HTML.escape(text.whatIsThis[lang]))</summary>
            <p>\(HTML.escape(text.explanation[lang]))</p>
            </details>

            """
        return PageLayout.page(
            title: text.entryTitle[lang], content: html, status: problem == nil ? .ok : .badRequest, language: lang)
    }

    /// The device consent page: the app, that it is for a TV or device, the code to compare,
    /// the permissions, and Allow / Cancel.
    ///
    /// With `signsInCompanion` (the device asks scope `companion`: `portico-agent login
    /// --device`), a stronger warning comes first: Allow makes that device's agent the person's
    /// single sign-on for every app there, so a code a phisher got the person to enter would
    /// hand over far more than one app. The scope is not refused in the device flow, because the
    /// agent on a headless machine has no other way to sign in (DESIGN, "The companion").
    static func consent(
        client: Client, user: UserRecord, userCode: String, permissions: [String], sealedRequest: String,
        csrfToken: String, signsInCompanion: Bool = false,
        language: PageLanguage
    ) -> Response {
        let text = DeviceText.self
        let lang = language
        let app = HTML.escape(client.name)
        let hidden =
            HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken)
            + HTML.hiddenField(name: AuthorizationFlow.requestField, value: sealedRequest)
        var html = AppHeader.html(for: client, line: text.wantsToConnect[lang]) + "\n"
        html += "<h1>\(text.consentTitle(app)[lang])</h1>\n"
        if signsInCompanion {
            html += """
                <div class="alert" role="alert" id="companion-warning"><strong>\(text.companionWarningTitle(app)[lang])\
                </strong><p>\(text.companionWarning[lang])</p></div>

                """
        }
        html += """
            <div class="device-code" id="device-code"><span class="small">\(text.codeShown[lang])</span>
            <strong>\(HTML.escape(UserCode.formatted(userCode)))</strong></div>
            <p>\(text.compareCode[lang])</p>
            <p>\(text.permissionsIntro(app)[lang])</p>
            <ul class="permissions">

            """
        for line in permissions { html += "<li>\(HTML.escape(line))</li>\n" }
        html += """
            </ul>
            <form method="post" action="\(AuthorizationFlow.devicePath)">
            \(hidden)
            <div class="actions">
            <button type="submit" class="button primary" name="decision" value="allow">\
            \(text.allow[lang])</button>
            <button type="submit" class="button secondary" name="decision" value="deny">\
            \(text.cancel[lang])</button>
            </div>
            </form>
            <p class="small">\(text.disconnectAnyTime[lang])</p>

            """
        let account = """
            <div class="account"><span>\(ConsentText.signedInAs(HTML.escape(user.name))[lang])</span>
            <form method="post" action="\(AuthorizationFlow.devicePath)">\(hidden)<button type="submit" \
            class="linkish" name="decision" value="switch">\(ConsentText.switchAccount[lang])</button></form></div>
            """
        return PageLayout.page(
            title: text.consentTitle(client.name)[lang], content: html, account: account, language: lang)
    }

    /// The end of an approved device login.
    static func connected(appName: String, language: PageLanguage) -> Response {
        result(
            title: DeviceText.connectedTitle, message: DeviceText.connectedMessage(HTML.escape(appName)), success: true,
            language: language)
    }

    /// The end of a refused device login.
    static func denied(appName: String, language: PageLanguage) -> Response {
        result(
            title: DeviceText.deniedTitle, message: DeviceText.deniedMessage(HTML.escape(appName)), success: false,
            language: language)
    }

    /// Too many wrong codes from this address: 429 with `Retry-After`.
    static func tooManyAttempts(retryAfter seconds: Int, language: PageLanguage) -> Response {
        let text = DeviceText.self
        let minutes = max(1, (seconds + 59) / 60)
        var html = "<h1>\(HTML.escape(text.throttledTitle[language]))</h1>\n"
        html += "<div class=\"alert\" role=\"alert\">\(HTML.escape(text.throttledMessage[language]))</div>\n"
        html += "<p class=\"small\">\(HTML.escape(text.throttledAdvice(minutes: minutes)[language]))</p>\n"
        var response = PageLayout.page(
            title: text.throttledTitle[language], content: html, status: .tooManyRequests, language: language)
        response.headers["Retry-After"] = String(seconds)
        return response
    }

    private static func result(title: Localized, message: Localized, success: Bool, language: PageLanguage)
        -> Response
    {
        let text = DeviceText.self
        var html = "<h1>\(HTML.escape(title[language]))</h1>\n"
        html += "<div class=\"\(success ? "notice" : "alert")\" role=\"status\" id=\"device-result\">"
        html += "\(message[language])</div>\n"
        html += "<p class=\"small\">\(HTML.escape(text.closePage[language]))</p>\n"
        html += "<p class=\"links\"><a href=\"/account\">\(HTML.escape(text.yourAccount[language]))</a>"
        html += "<a href=\"\(AuthorizationFlow.devicePath)\">\(HTML.escape(text.anotherDevice[language]))</a></p>\n"
        return PageLayout.page(title: title[language], content: html, language: language)
    }
}
