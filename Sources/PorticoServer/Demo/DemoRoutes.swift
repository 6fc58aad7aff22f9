import PorticoHTTP

/// `--demo` only: a demo app whose redirect is a built-in `/demo/callback` page.
///
/// Without `--demo` none of these routes exist, and neither does the demo app's client.
enum DemoRoutes {
    /// Adds `/demo`, `/demo/login`, `/demo/callback`, `/demo/privacy`, `/demo/signed-out` and the
    /// demo stylesheet,
    /// and returns the app so that the provider can seed it once its issuer is known.
    @discardableResult
    static func register(on router: Router, context: ProviderContext) -> DemoApp {
        let app = DemoApp(context: context)
        // Opened at another name of this server (`localhost` for `127.0.0.1`), the demo would set
        // its state cookie where the callback, at the issuer, cannot read it: go there first.
        router.get("/demo") { request in
            IssuerHostRedirect.redirect(request, issuer: context.issuer) ?? app.home(request)
        }
        router.getAsync("/demo/login") { request in
            if let redirect = IssuerHostRedirect.redirect(request, issuer: context.issuer) { return redirect }
            return await app.startLogin(request)
        }
        router.getAsync("/demo/callback") { request in await app.callback(request) }
        // Both act on GET (start a login, redeem a code): no HEAD.
        router.refuseHead("/demo/login", allowing: "GET")
        router.refuseHead("/demo/callback", allowing: "GET")
        router.get("/demo/privacy") { _ in DemoPages.privacy() }
        router.get(DemoSeed.signedOutPath) { request in app.signedOut(request) }
        router.get("/demo/demo.css") { _ in DemoStylesheet.response }
        return app
    }
}
