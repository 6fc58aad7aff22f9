import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `GET,POST /fedcm/continue`: the assertion endpoint's `continue_on`, Portico's consent page
/// in the browser's FedCM popup, for scopes beyond what the browser's disclosure covers.
///
/// The query carries what the assertion endpoint checked (`client_id`, `scope`,
/// `code_challenge`, `nonce`); the page checks it again, as the form post does (CSRF token
/// bound to the session, same origin). Allow remembers the consent, issues the FedCM code and
/// answers a page whose script calls `IdentityProvider.resolve(code)`; Cancel calls
/// `IdentityProvider.close()`. Outside FedCM's popup those calls do nothing: the code stays in
/// a page only Portico's origin can read, and expires unused.
struct FedCMContinueEndpoint: Sendable {
    /// The provider's store, keys and clock.
    let environment: PageEnvironment

    /// The `continue_on` URL for `request` of `clientID`.
    static func location(issuer: String, clientID: String, request: FedCMCode.Request) -> String {
        var parameters = [
            ("client_id", clientID), ("scope", request.scopes.joined(separator: " ")),
            ("code_challenge", request.codeChallenge),
        ]
        if let nonce = request.nonce { parameters.append(("nonce", nonce)) }
        return AuthorizationResponse.location(issuer + FedCMConfiguration.continuePath, parameters)
    }

    /// Adds `GET` and `POST`.
    func register(on router: Router) {
        router.page(
            FedCMConfiguration.continuePath, environment: environment, show: { try show($0) },
            submit: { try decide($0) })
    }

    /// What the page is about, read from the query or the form and checked.
    private func read(_ values: FormParameters) throws -> (Client, FedCMCode.Request) {
        let clientID = try? single(values, "client_id")
        guard let clientID = clientID ?? nil, StoredText.canHold(clientID),
            let client = try environment.store.read({ try $0.client(id: clientID) }), client.suspendedAt == nil,
            !client.requiresPAR
        else {
            throw PageProblem.malformedRequest(appName: nil)
        }
        do {
            let asked = try FedCMCode.Request.read(
                challenge: try single(values, "code_challenge"), method: "S256", scope: try single(values, "scope"),
                nonce: try single(values, "nonce"), allowed: client.allowedScopes)
            return (client, asked)
        } catch {
            throw PageProblem.malformedRequest(appName: client.name)
        }
    }

    private func purpose(_ signedIn: SignInSession) -> String {
        "fedcm-consent:" + signedIn.session.hashedID
    }

    private func show(_ request: Request) throws -> Response {
        let (client, asked) = try read(request.query)
        guard let signedIn = try SignInSession.current(in: request, environment: environment) else {
            let here = AuthorizationResponse.location(
                FedCMConfiguration.continuePath, request.query.map { ($0.0, $0.1) })
            return PageLayout.redirect(to: ReturnPath.signInLocation(returningTo: here))
        }
        let language = request.pageLanguage()
        let lines = try environment.store.read { transaction in
            try asked.scopes.map { try ScopeCatalog.description(of: $0, in: transaction, language: language) }
        }
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        let token = CSRFProtection.token(secret: secret, purpose: purpose(signedIn))
        let name = HTML.escape(client.name)
        var hidden = [
            ("client_id", client.id), ("scope", asked.scopes.joined(separator: " ")),
            ("code_challenge", asked.codeChallenge),
        ]
        if let nonce = asked.nonce { hidden.append(("nonce", nonce)) }
        let html = """
            <div class="app">\(AppLogo.html(for: client))<div><div class="app-name">\(name)</div></div></div>
            <h1>\(FedCMText.consentTitle(name)[language])</h1>
            <p>\(FedCMText.wants[language])</p>
            <ul class="scopes">\(lines.map { "<li>\(HTML.escape($0))</li>" }.joined())</ul>
            <form method="post" action="\(FedCMConfiguration.continuePath)">
            \(HTML.hiddenField(name: CSRFProtection.fieldName, value: token))
            \(hidden.map { HTML.hiddenField(name: $0.0, value: $0.1) }.joined(separator: "\n"))
            <div class="actions">
            <button type="submit" class="button primary" name="decision" value="allow">\(FedCMText.allow[language])</button>
            <button type="submit" class="button secondary" name="decision" value="deny">\(FedCMText.cancel[language])</button>
            </div>
            </form>

            """
        var response = PageLayout.page(
            title: FedCMText.consentTitle(client.name)[language], content: html, language: language)
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private func decide(_ request: Request) throws -> Response {
        let form = try request.pageForm()
        let (client, asked) = try read(form)
        guard let signedIn = try SignInSession.current(in: request, environment: environment),
            CSRFProtection.verify(form, request: request, purpose: purpose(signedIn), secure: environment.usesHTTPS)
        else {
            throw PageProblem.forgedForm(appName: client.name)
        }
        let language = request.pageLanguage()
        var token: String?
        switch try single(form, "decision") {
        case "allow":
            let now = environment.now()
            try environment.store.transaction { transaction in
                try UnverifiedAppLimit.check(client, userID: signedIn.user.id, in: transaction)
                try ConsentPolicy().grant(
                    userID: signedIn.user.id, clientID: client.id, scopes: Set(asked.scopes), in: transaction, now: now)
            }
            token = try FedCMCode.issue(asked, client: client, signedIn: signedIn, environment: environment)
        case "deny":
            token = nil
        default:
            throw PageProblem.malformedRequest(appName: client.name)
        }
        let data = token.map { " data-token=\"\(HTML.escape($0))\"" } ?? ""
        let html = """
            <h1>\(FedCMText.doneTitle[language])</h1>
            <p class="lead" id="fedcm-done"\(data)>\(FedCMText.doneLead[language])</p>
            \(FedCMScript.tag)
            """
        return PageLayout.page(title: FedCMText.doneTitle[language], content: html, language: language)
    }
}
