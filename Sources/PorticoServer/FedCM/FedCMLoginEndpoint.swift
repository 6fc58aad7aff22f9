import PorticoHTTP

/// `GET /fedcm/login`, the config's `login_url`: the browser opens it in a popup when the
/// person is not signed in to Portico. Signed out, it sends them to the usual sign-in page
/// (`/login?return_to=/fedcm/login`), every way of signing in included; signed in, it answers
/// `Set-Login: logged-in` and a page whose script calls `IdentityProvider.close()`, so the
/// browser closes the popup and shows its dialog.
struct FedCMLoginEndpoint: Sendable {
    /// The provider's store and clock.
    let environment: PageEnvironment

    /// Adds the route.
    func register(on router: Router) {
        router.getAsync(FedCMConfiguration.loginPath) { request in
            await ErrorPage.guarding(request) { try show(request) }
        }
    }

    private func show(_ request: Request) throws -> Response {
        if let redirect = IssuerHostRedirect.redirect(request, issuer: environment.issuer) { return redirect }
        guard let signedIn = try SignInSession.current(in: request, environment: environment) else {
            var location = ReturnPath.signInLocation(returningTo: FedCMConfiguration.loginPath)
            // The language asked for (`ui_locales`) carries over to the sign-in page.
            if let locales = request.query["ui_locales"] {
                location = AuthorizationResponse.location(location, [("ui_locales", locales)])
            }
            return PageLayout.redirect(to: location)
        }
        let language = request.pageLanguage()
        let html = """
            <h1>\(FedCMText.signedInTitle[language])</h1>
            <p class="lead" id="fedcm-done">\(FedCMText.signedInLead[language])</p>
            \(FedCMScript.tag)
            """
        var response = PageLayout.page(title: FedCMText.signedInTitle[language], content: html, language: language)
        LoginStatus.signedIn(&response, token: signedIn.token, session: signedIn.session, environment: environment)
        return response
    }
}
