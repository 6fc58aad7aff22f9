import PorticoHTTP
import PorticoServer

/// `--demo` only: a demo app whose redirect is a built-in `/demo/callback` page.
///
/// Without `--demo` none of these routes exist, and neither does the demo app's client.
enum DemoRoutes {
    /// Adds `/demo`, `/demo/login`, `/demo/callback`, `/demo/privacy`, `/demo/signed-out`, the
    /// web-SDK page (`/demo/web`, its callback, `/demo/web/redeem`, `/demo/web.js`) and the
    /// demo stylesheet, answered by `site`.
    static func register(on router: Router, site: DemoSite, services: ProviderAppServices) {
        // Opened at another name of this server (`localhost` for `127.0.0.1`), the demo would set
        // its state cookie where the callback, at the issuer, cannot read it: go there first.
        router.get("/demo") { request in
            services.redirectToIssuerHost(request) ?? site.home(request)
        }
        router.getAsync("/demo/login") { request in
            if let redirect = services.redirectToIssuerHost(request) { return redirect }
            return await site.startLogin(request)
        }
        router.getAsync("/demo/callback") { request in await site.callback(request) }
        // Both act on GET (start a login, redeem a code): no HEAD.
        router.refuseHead("/demo/login", allowing: "GET")
        router.refuseHead("/demo/callback", allowing: "GET")
        router.get("/demo/privacy") { _ in DemoPages.privacy() }
        router.get(DemoSeed.signedOutPath) { request in site.signedOut(request) }
        router.get("/demo/demo.css") { _ in DemoStylesheet.response }
        // The web-SDK page: at the issuer's host too, since its redirect URI is there.
        router.get("/demo/web") { request in
            services.redirectToIssuerHost(request) ?? site.webHome(request)
        }
        router.get(DemoSeed.webCallbackPath) { _ in DemoWebPages.callback() }
        router.postAsync("/demo/web/redeem") { request in await site.webRedeem(request) }
        router.get("/demo/web.js") { _ in DemoWebPages.script }
    }
}
