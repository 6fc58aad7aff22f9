import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// The developer console: `/developer` (the terms once, then the person's apps),
/// `/developer/apps/new`, an app's page `/developer/apps/{client_id}` and its consent-page
/// preview `/developer/apps/{client_id}/preview?lang=en|zh-CN`.
///
/// Any signed-in person may use it (without a session the browser goes to sign in and comes
/// back), after accepting the developer terms. An app's page answers 404 alike for apps that
/// do not exist and for apps the person neither owns nor co-develops, so it tells nobody which
/// ids exist. Every form is CSRF-checked against the session that showed it; a refused form
/// changes nothing. A new secret (after creation or rotation) travels to the app's page once,
/// sealed in a cookie for that page that the page deletes as it shows it: a reload shows no
/// secret, and the server keeps only its hash.
struct DeveloperEndpoint: Sendable {
    /// The console's path.
    static let path = "/developer"
    /// The operator's list of every app.
    static let operatorPath = "/developer/operator"
    /// The new-app form.
    static let newPath = "/developer/apps/new"
    /// An app's page.
    static func appPath(_ clientID: String) -> String {
        "/developer/apps/" + (clientID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "")
    }
    /// How long a new secret waits in its cookie for the page that shows it.
    static let secretCookieLifetime = 300
    /// The secret cookie's name.
    static let secretCookieName = "portico_new_secret"

    /// The provider's store, keys and clock.
    let environment: PageEnvironment

    private var apps: DeveloperApps {
        DeveloperApps(store: environment.store, now: environment.now, forgetClient: environment.forgetClient)
    }

    /// Adds the console's routes.
    func register(on router: Router) {
        router.page(Self.path, environment: environment, show: { try showHome($0) }, submit: { try acceptTerms($0) })
        router.getAsync(Self.operatorPath) { request in
            PageLayout.secured(await ErrorPage.guarding(request) { try showOperator(request) })
        }
        router.refuseHead(Self.operatorPath, allowing: "GET")
        router.page(Self.newPath, environment: environment, show: { try showNew($0) }, submit: { try create($0) })
        router.page(
            "/developer/apps/:client_id", environment: environment, show: { try showApp($0) },
            submit: { try act($0) })
        router.getAsync("/developer/apps/:client_id/preview") { request in
            PageLayout.secured(await ErrorPage.guarding(request) { try preview(request) })
        }
    }

    // MARK: Who is asking

    private struct Visitor {
        let signedIn: SignInSession
        let csrfToken: String
        let cookie: Cookie?
        let language: PageLanguage
        var page: DeveloperPage {
            DeveloperPage(user: signedIn.user, csrfToken: csrfToken, language: language)
        }
    }

    /// The signed-in visitor of a GET, or nil (send them to sign in).
    private func visitor(_ request: Request) throws -> Visitor? {
        guard let signedIn = try SignInSession.current(in: request, environment: environment) else { return nil }
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        return Visitor(
            signedIn: signedIn,
            csrfToken: CSRFProtection.token(
                secret: secret, purpose: CSRFProtection.developerPurpose(sessionHashedID: signedIn.session.hashedID)),
            cookie: cookie, language: request.pageLanguage())
    }

    /// The form of a POST and who sent it, CSRF-checked; nil when nobody is signed in.
    private func posted(_ request: Request) throws -> (FormParameters, Visitor)? {
        let form = try request.pageForm()
        guard let visitor = try visitor(request) else { return nil }
        let purpose = CSRFProtection.developerPurpose(sessionHashedID: visitor.signedIn.session.hashedID)
        guard CSRFProtection.verify(form, request: request, purpose: purpose, secure: environment.usesHTTPS) else {
            throw PageProblem.forgedForm(appName: nil)
        }
        return (form, visitor)
    }

    private func signIn(returningTo path: String, status: HTTPStatus) -> Response {
        PageLayout.redirect(to: ReturnPath.signInLocation(returningTo: path), status: status)
    }

    private func hasAcceptedTerms(_ visitor: Visitor) throws -> Bool {
        try environment.store.read { try $0.developerTermsAcceptedAt(userID: visitor.signedIn.user.id) } != nil
    }

    private func finish(_ response: Response, _ visitor: Visitor) -> Response {
        var response = response
        if let cookie = visitor.cookie { response.setCookie(cookie) }
        return response
    }

    // MARK: The console

    private func showHome(_ request: Request) throws -> Response {
        guard let visitor = try visitor(request) else { return signIn(returningTo: Self.path, status: .found) }
        guard try hasAcceptedTerms(visitor) else { return finish(visitor.page.terms(error: false), visitor) }
        let listed = try environment.store.read { transaction in
            try transaction.developerApps(userID: visitor.signedIn.user.id).compactMap { app in
                try transaction.client(id: app.clientID).map { (app: app, client: $0) }
            }
        }
        let notice = request.query["done"] == "deleted" ? DeveloperText.deleted : nil
        return finish(visitor.page.list(listed, notice: notice), visitor)
    }

    private func acceptTerms(_ request: Request) throws -> Response {
        guard let (form, visitor) = try posted(request) else {
            return signIn(returningTo: Self.path, status: .seeOther)
        }
        guard form["accept_terms"] != nil else { return finish(visitor.page.terms(error: true), visitor) }
        let now = environment.now()
        try environment.store.transaction { transaction in
            try transaction.acceptDeveloperTerms(userID: visitor.signedIn.user.id, at: now)
            try transaction.append(
                AuditEvent(
                    occurredAt: now, actor: visitor.signedIn.user.id, action: "developer.accept_terms",
                    subject: visitor.signedIn.user.id))
        }
        return PageLayout.redirect(to: Self.path, status: .seeOther)
    }

    private func showNew(_ request: Request) throws -> Response {
        guard let visitor = try visitor(request) else { return signIn(returningTo: Self.newPath, status: .found) }
        guard try hasAcceptedTerms(visitor) else { return PageLayout.redirect(to: Self.path, status: .found) }
        return finish(visitor.page.newApp(DeveloperAppForm(), error: nil), visitor)
    }

    private func create(_ request: Request) throws -> Response {
        guard let (form, visitor) = try posted(request) else {
            return signIn(returningTo: Self.newPath, status: .seeOther)
        }
        guard try hasAcceptedTerms(visitor) else { return PageLayout.redirect(to: Self.path, status: .seeOther) }
        var values = DeveloperAppForm()
        let registered: RegisteredClient
        do {
            values = try DeveloperAppForm(form: form)
            registered = try apps.create(values, ownerID: visitor.signedIn.user.id)
        } catch {
            return finish(visitor.page.newApp(values, error: error.description), visitor)
        }
        return redirectToApp(registered.client.id, secret: registered.secret, visitor: visitor)
    }

    // MARK: An app

    /// The app named in the path, if `visitor` owns or co-develops it.
    private func app(_ request: Request, for visitor: Visitor) throws -> (DeveloperApp, Client)? {
        guard let clientID = request.pathParameters["client_id"], StoredText.canHold(clientID) else { return nil }
        return try environment.store.read { transaction in
            guard let app = try transaction.developerApp(clientID: clientID, userID: visitor.signedIn.user.id),
                let client = try transaction.client(id: clientID)
            else { return nil }
            return (app, client)
        }
    }

    private func showApp(_ request: Request) throws -> Response {
        let path = request.path
        guard let visitor = try visitor(request) else { return signIn(returningTo: path, status: .found) }
        guard let (app, client) = try app(request, for: visitor) else {
            return finish(visitor.page.notFound(), visitor)
        }
        let secret = openSecretCookie(request, clientID: client.id, visitor: visitor)
        var notice: Localized?
        switch request.query["done"] {
        case "saved": notice = DeveloperText.saved
        case "rotated": notice = DeveloperText.rotated
        case "developer_added": notice = DeveloperText.developerAdded
        case "developer_removed": notice = DeveloperText.developerRemoved
        default: notice = nil
        }
        var response = try appPage(app, client, visitor: visitor, secret: secret, notice: notice)
        if request.cookies[secretCookie(secure: environment.usesHTTPS)] != nil {
            response.setCookie(
                Cookie.expired(name: secretCookie(secure: environment.usesHTTPS), path: Self.appPath(client.id)))
        }
        return finish(response, visitor)
    }

    private func appPage(
        _ app: DeveloperApp, _ client: Client, visitor: Visitor, secret: String? = nil, notice: Localized? = nil,
        form: DeveloperAppForm? = nil, error: String? = nil, developerError: String? = nil
    ) throws -> Response {
        let today = DailySignIns.day(of: environment.now())
        let (people, signIns, developers) = try environment.store.read { transaction in
            let people = try transaction.consentCount(clientID: client.id)
            let signIns = try transaction.signInsPerDay(clientID: client.id, from: SignInChart.firstDay(today: today))
            guard app.role == .owner else { return (people, signIns, [(id: String, email: String)]()) }
            let developers = try transaction.developerCollaborators(clientID: client.id).compactMap { entry in
                try transaction.user(id: entry.userID).map { (id: $0.id, email: $0.email) }
            }
            return (people, signIns, developers)
        }
        return visitor.page.app(
            DeveloperPage.AppDetails(
                client: client, app: app, people: people, signIns: SignInChart(counts: signIns, today: today),
                form: form ?? DeveloperAppForm(client: client, webOrigins: app.webOrigins), error: error,
                secret: secret, notice: notice, developers: developers, developerError: developerError))
    }

    private func act(_ request: Request) throws -> Response {
        guard let (form, visitor) = try posted(request) else {
            return signIn(returningTo: request.path, status: .seeOther)
        }
        guard let (app, client) = try app(request, for: visitor) else {
            return finish(visitor.page.notFound(), visitor)
        }
        let userID = visitor.signedIn.user.id
        switch form["action"] {
        case "save":
            var values = DeveloperAppForm(client: client, webOrigins: app.webOrigins)
            do {
                values = try DeveloperAppForm(form: form)
                try apps.save(values, to: client, by: userID)
            } catch {
                return finish(
                    try appPage(app, client, visitor: visitor, form: values, error: error.description), visitor)
            }
            return PageLayout.redirect(to: Self.appPath(client.id) + "?done=saved", status: .seeOther)
        case "rotate_secret" where app.role == .owner:
            guard let secret = try apps.rotateSecret(clientID: client.id, by: userID) else {
                throw PageProblem.malformedRequest(appName: nil)
            }
            return redirectToApp(client.id, secret: secret, visitor: visitor, done: "rotated")
        case "delete" where app.role == .owner:
            guard form["confirm"] == "yes" else { return finish(visitor.page.confirmDelete(client), visitor) }
            try apps.delete(clientID: client.id, by: userID)
            return PageLayout.redirect(to: Self.path + "?done=deleted", status: .seeOther)
        case "add_developer" where app.role == .owner:
            guard try apps.addCodeveloper(email: form["email"] ?? "", to: app, by: userID) else {
                return finish(
                    try appPage(
                        app, client, visitor: visitor, developerError: DeveloperText.noSuchAccount[visitor.language]),
                    visitor)
            }
            return PageLayout.redirect(to: Self.appPath(client.id) + "?done=developer_added", status: .seeOther)
        case "remove_developer" where app.role == .owner:
            try apps.removeCodeveloper(form["user_id"] ?? "", from: client.id, by: userID)
            return PageLayout.redirect(to: Self.appPath(client.id) + "?done=developer_removed", status: .seeOther)
        case "rotate_secret", "delete", "add_developer", "remove_developer":
            return finish(visitor.page.notFound(), visitor)
        default:
            throw PageProblem.malformedRequest(appName: nil)
        }
    }

    /// Every app, newest first, for operators (`portico user admin --on`); 404 for others.
    private func showOperator(_ request: Request) throws -> Response {
        guard let visitor = try visitor(request) else { return signIn(returningTo: Self.operatorPath, status: .found) }
        let rows = try environment.store.read { transaction -> [DeveloperPage.OperatorRow]? in
            guard try transaction.isOperator(userID: visitor.signedIn.user.id) else { return nil }
            var owners: [String: String] = [:]
            for app in try transaction.allDeveloperApps() {
                owners[app.clientID] = try transaction.user(id: app.ownerID)?.email
            }
            return try transaction.clients().sorted { $0.createdAt > $1.createdAt }.map { client in
                DeveloperPage.OperatorRow(
                    client: client, ownerEmail: owners[client.id],
                    people: try transaction.consentCount(clientID: client.id))
            }
        }
        guard let rows else { return finish(visitor.page.notFound(), visitor) }
        return finish(visitor.page.operatorList(rows), visitor)
    }

    /// The app's consent page as people would see it, in the `lang` asked for.
    private func preview(_ request: Request) throws -> Response {
        let path = request.path
        guard let visitor = try visitor(request) else { return signIn(returningTo: path, status: .found) }
        guard let (_, client) = try app(request, for: visitor) else { return visitor.page.notFound() }
        let language =
            request.query["lang"].map { PageLanguage.negotiate(uiLocales: $0, acceptLanguage: nil) }
            ?? visitor.language
        let permissions = try environment.store.read { transaction in
            var lines: [String] = []
            for scope in client.allowedScopes {
                let line = try ScopeCatalog.description(of: scope, in: transaction, language: language)
                if !lines.contains(line) { lines.append(line) }
            }
            return lines
        }
        return ConsentPage(
            client: client, user: visitor.signedIn.user, requested: permissions, alreadyGranted: [],
            sealedRequest: "", csrfToken: "", language: language
        ).response()
    }

    // MARK: The secret, once

    /// `__Secure-` rather than `__Host-` over https: the cookie is scoped to the app's page.
    private func secretCookie(secure: Bool) -> String {
        secure ? "__Secure-" + Self.secretCookieName : Self.secretCookieName
    }

    private var sealingKey: KeyEncryptionKey? {
        KeyEncryptionKey(bytes: environment.keys.derivedSecret(purpose: "portico developer console new secret"))
    }

    private static func sealContext(clientID: String, sessionHashedID: String) -> String {
        "portico new client secret \(clientID) \(sessionHashedID)"
    }

    /// A 303 to the app's page carrying `secret` (if any) in a sealed cookie for that page alone.
    private func redirectToApp(_ clientID: String, secret: String?, visitor: Visitor, done: String? = nil) -> Response {
        var response = PageLayout.redirect(
            to: Self.appPath(clientID) + (done.map { "?done=\($0)" } ?? ""), status: .seeOther)
        let issued = Int(environment.now().timeIntervalSince1970)
        if let secret, let key = sealingKey,
            let sealed = try? key.seal(
                "\(issued) \(secret)",
                context: Self.sealContext(clientID: clientID, sessionHashedID: visitor.signedIn.session.hashedID))
        {
            response.setCookie(
                Cookie(
                    name: secretCookie(secure: environment.usesHTTPS), value: sealed, path: Self.appPath(clientID),
                    maxAge: Self.secretCookieLifetime, isSecure: environment.usesHTTPS, sameSite: .strict))
        }
        return finish(response, visitor)
    }

    /// The secret sealed for this app and session, if the cookie carries one made recently.
    private func openSecretCookie(_ request: Request, clientID: String, visitor: Visitor) -> String? {
        guard let sealed = request.cookies[secretCookie(secure: environment.usesHTTPS)], let key = sealingKey,
            let text = try? key.open(
                sealed,
                context: Self.sealContext(clientID: clientID, sessionHashedID: visitor.signedIn.session.hashedID)),
            let space = text.firstIndex(of: " "), let issued = Int(text[..<space])
        else { return nil }
        let age = Int(environment.now().timeIntervalSince1970) - issued
        guard age >= 0, age <= Self.secretCookieLifetime else { return nil }
        return String(text[text.index(after: space)...])
    }
}
