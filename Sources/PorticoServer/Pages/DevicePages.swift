import PorticoHTTP
import PorticoStore

/// The pages of a device login at `/device`, in the order a person meets them: enter the code
/// from the TV, (sign in,) confirm the app and the code, and the result.
///
/// Like Login with Amazon's code page, the consent names the app *and* says it is for a TV or
/// device, and shows the code again so the person can check it matches the screen in front of
/// them: the one defence against someone who sends a victim their own code (RFC 8628 §5.4).
/// Every English sentence is in ``DeviceText`` so translation has one place to go.
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
    static func entry(csrfToken: String, typed: String = "", problem: EntryProblem? = nil) -> Response {
        var html = "<h1>\(HTML.escape(DeviceText.entryTitle))</h1>\n"
        html += "<p class=\"lead\">\(HTML.escape(DeviceText.entryLead))</p>\n"
        if let problem {
            let (title, message) = DeviceText.words(for: problem)
            html += """
                <div class="alert" role="alert" id="code-error"><strong>\(HTML.escape(title))</strong>\
                \(HTML.escape(message))</div>

                """
        }
        let described = problem == nil ? "code-help" : "code-error code-help"
        html += """
            <form method="post" action="\(AuthorizationFlow.devicePath)">
            \(HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken))
            <label for="user_code">\(HTML.escape(DeviceText.codeLabel))</label>
            <input type="text" id="user_code" name="user_code" class="code-input" value="\(HTML.escape(typed))" \
            autocomplete="one-time-code" autocapitalize="characters" autocorrect="off" spellcheck="false" \
            maxlength="32" placeholder="XXXX-XXXX" required aria-describedby="\(described)"\
            \(problem == nil ? "" : #" aria-invalid="true""#)>
            <p class="small" id="code-help">\(HTML.escape(DeviceText.codeHelp))</p>
            <button type="submit" class="button primary">\(HTML.escape(DeviceText.continueButton))</button>
            </form>
            <details>
            <summary>\(HTML.escape(DeviceText.whatIsThis))</summary>
            <p>\(HTML.escape(DeviceText.explanation))</p>
            </details>

            """
        return PageLayout.page(
            title: DeviceText.entryTitle, content: html, status: problem == nil ? .ok : .badRequest)
    }

    /// The device consent page: the app, that it is for a TV or device, the code to compare,
    /// the permissions, and Allow / Cancel.
    static func consent(
        client: Client, user: User, userCode: String, permissions: [String], sealedRequest: String, csrfToken: String
    ) -> Response {
        let app = HTML.escape(client.name)
        let hidden =
            HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken)
            + HTML.hiddenField(name: AuthorizationFlow.requestField, value: sealedRequest)
        var html = "<div class=\"app\">\(logo(of: client))<div><div class=\"app-name\">\(app)</div>"
        html += "<div class=\"small\">\(HTML.escape(DeviceText.wantsToConnect))</div></div></div>\n"
        html += "<h1>\(HTML.escape(DeviceText.consentTitle(appName: client.name)))</h1>\n"
        html += """
            <div class="device-code" id="device-code"><span class="small">\(HTML.escape(DeviceText.codeShown))</span>
            <strong>\(HTML.escape(UserCode.formatted(userCode)))</strong></div>
            <p>\(HTML.escape(DeviceText.compareCode))</p>
            <p>\(HTML.escape(DeviceText.permissionsIntro(appName: client.name)))</p>
            <ul class="permissions">

            """
        for line in permissions { html += "<li>\(HTML.escape(line))</li>\n" }
        html += """
            </ul>
            <form method="post" action="\(AuthorizationFlow.devicePath)">
            \(hidden)
            <div class="actions">
            <button type="submit" class="button primary" name="decision" value="allow">\
            \(HTML.escape(DeviceText.allowButton))</button>
            <button type="submit" class="button secondary" name="decision" value="deny">\
            \(HTML.escape(DeviceText.denyButton))</button>
            </div>
            </form>
            <p class="small">\(HTML.escape(DeviceText.removeLater)) <a href="/account">\
            \(HTML.escape(DeviceText.yourAccount))</a>.</p>

            """
        let account = """
            <div class="account"><span>\(HTML.escape(DeviceText.signedInAs)) <span class="who">\
            \(HTML.escape(user.name))</span></span>
            <form method="post" action="\(AuthorizationFlow.devicePath)">\(hidden)<button type="submit" \
            class="linkish" name="decision" value="switch">\(HTML.escape(DeviceText.switchAccount))</button></form></div>
            """
        return PageLayout.page(title: DeviceText.consentTitle(appName: client.name), content: html, account: account)
    }

    /// The end of an approved device login.
    static func connected(appName: String) -> Response {
        result(title: DeviceText.connectedTitle, message: DeviceText.connectedMessage(appName: appName), success: true)
    }

    /// The end of a refused device login.
    static func denied(appName: String) -> Response {
        result(title: DeviceText.deniedTitle, message: DeviceText.deniedMessage(appName: appName), success: false)
    }

    /// Too many wrong codes from this address: 429 with `Retry-After`.
    static func tooManyAttempts(retryAfter seconds: Int) -> Response {
        let minutes = max(1, (seconds + 59) / 60)
        var html = "<h1>\(HTML.escape(DeviceText.throttledTitle))</h1>\n"
        html += "<div class=\"alert\" role=\"alert\"><p>\(HTML.escape(DeviceText.throttledMessage))</p></div>\n"
        html += "<p class=\"small\">\(HTML.escape(DeviceText.throttledAdvice(minutes: minutes)))</p>\n"
        var response = PageLayout.page(title: DeviceText.throttledTitle, content: html, status: .tooManyRequests)
        response.headers["Retry-After"] = String(seconds)
        return response
    }

    private static func result(title: String, message: String, success: Bool) -> Response {
        var html = "<h1>\(HTML.escape(title))</h1>\n"
        html += "<div class=\"\(success ? "notice" : "alert")\" role=\"status\" id=\"device-result\">"
        html += "\(HTML.escape(message))</div>\n"
        html += "<p class=\"small\">\(HTML.escape(DeviceText.closePage))</p>\n"
        html += "<p class=\"links\"><a href=\"/account\">\(HTML.escape(DeviceText.yourAccount))</a>"
        html += "<a href=\"\(AuthorizationFlow.devicePath)\">\(HTML.escape(DeviceText.anotherDevice))</a></p>\n"
        return PageLayout.page(title: title, content: html)
    }

    /// The app's logo from an https URL, or a tile with its initial (as on the consent page).
    private static func logo(of client: Client) -> String {
        if let url = client.logoURL, HTML.isSafeLink(url, allowHTTP: false) {
            return #"<img class="app-logo" src="\#(HTML.escape(url))" alt="\#(HTML.escape(client.name)) logo">"#
        }
        let initial = client.name.first.map { String($0).uppercased() } ?? "?"
        return #"<div class="app-placeholder" aria-hidden="true">\#(HTML.escape(initial))</div>"#
    }
}

/// The English words of the device pages, kept together for translation.
enum DeviceText {
    static let entryTitle = "Connect a TV or device"
    static let entryLead = "Enter the code shown on your TV, console or other device."
    static let codeLabel = "Code"
    static let codeHelp = "8 letters, for example BCDF-GHJK. Upper or lower case, with or without the dash."
    static let continueButton = "Continue"
    static let whatIsThis = "What is this?"
    static let explanation =
        "Devices that are hard to type on let you sign in here instead: the device shows a short code, you "
        + "enter it on this page, sign in with your \(PageLayout.platformName) account and choose whether to allow it."
    static let wantsToConnect = "wants to use your \(PageLayout.platformName) account on your TV or device"
    static let codeShown = "Code on your device"
    static let compareCode =
        "Only continue if this is the code shown on your own device. If someone sent you this code, choose Cancel."
    static let allowButton = "Allow"
    static let denyButton = "Cancel"
    static let removeLater = "You can disconnect the device at any time in"
    static let yourAccount = "Your Account"
    static let signedInAs = "Signed in as"
    static let switchAccount = "Not you? Switch account"
    static let connectedTitle = "Your device is connected"
    static let deniedTitle = "The device was not connected"
    static let closePage = "You can close this page now."
    static let anotherDevice = "Connect another device"
    static let throttledTitle = "Too many attempts"
    static let throttledMessage = "Too many codes that don't match any device were entered from your network."

    static func consentTitle(appName: String) -> String {
        "Allow \(appName) on your TV or device?"
    }

    static func permissionsIntro(appName: String) -> String {
        "\(appName) will be able to:"
    }

    static func connectedMessage(appName: String) -> String {
        "\(appName) is now signed in with your \(PageLayout.platformName) account on your TV or device. "
            + "Go back to your device: it continues by itself in a few seconds."
    }

    static func deniedMessage(appName: String) -> String {
        "You did not allow \(appName). Nothing was shared, and your device stays signed out."
    }

    static func throttledAdvice(minutes: Int) -> String {
        "For your security, try again in \(minutes) minute\(minutes == 1 ? "" : "s"). "
            + "Check the code on your device carefully, or ask the device for a new code."
    }

    static func words(for problem: DevicePages.EntryProblem) -> (title: String, message: String) {
        switch problem {
        case .empty:
            ("Enter the code", "Type the code shown on your device.")
        case .unknownCode:
            (
                "That code didn't work",
                "It doesn't match any device waiting to connect, or it has expired. Check the code on your device "
                    + "and try again, or ask the device for a new code."
            )
        case .noLongerValid(let appName):
            (
                "This code is no longer valid",
                "The code for \(appName) has expired or was already used. Ask your device for a new code and enter it here."
            )
        }
    }
}
