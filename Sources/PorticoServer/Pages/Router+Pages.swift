import PorticoHTTP

extension Router {
    /// A page at `path`: `GET` shows it and `POST` takes its form, both off the HTTP threads (pages
    /// read the store and may hash passwords) and both guarded, so a thrown ``PageProblem``
    /// becomes its error page in the person's language and nothing answers a bare 500. `HEAD` is
    /// refused (``refuseHead(_:allowing:)``): several pages' `GET` acts.
    ///
    /// Every form post must come from this provider's own origin (``FormOrigin``), and on an
    /// https issuer every page carries `Strict-Transport-Security`.
    func page(
        _ path: String, environment: PageEnvironment, show: @escaping @Sendable (Request) throws -> Response,
        submit: @escaping @Sendable (Request) throws -> Response
    ) {
        getAsync(path) { request in
            Self.secured(await ErrorPage.guarding(request) { try show(request) }, environment: environment)
        }
        postAsync(path) { request in Self.submitted(request, environment: environment, submit) }
        refuseHead(path)
    }

    /// A form post at `path` that neither hashes a password nor waits on anything but the store,
    /// run where the store's handlers run (``RouteExecution``): on an embedded store, on the
    /// thread that read it, saving the two thread hops that cost such a post more than its
    /// work (a passkey sign-in). Guarded and checked like ``page(_:environment:show:submit:)``'s.
    func form(
        _ path: String, environment: PageEnvironment, _ submit: @escaping @Sendable (Request) throws -> Response
    ) {
        RouteExecution(for: environment.store).add(.post, path, on: self) { request in
            Self.submitted(request, environment: environment, submit)
        }
        refuseHead(path)
    }

    private static func submitted(
        _ request: Request, environment: PageEnvironment, _ submit: (Request) throws -> Response
    ) -> Response {
        secured(
            ErrorPage.guarding(request) {
                guard FormOrigin.isSameOrigin(request, issuer: environment.issuer) else {
                    throw PageProblem.forgedForm(appName: nil)
                }
                return try submit(request)
            }, environment: environment)
    }

    /// `response` with HSTS when the issuer is https.
    static func secured(_ response: Response, environment: PageEnvironment) -> Response {
        guard environment.usesHTTPS else { return response }
        var response = response
        response.headers["Strict-Transport-Security"] = FormOrigin.strictTransportSecurity
        return response
    }
}
