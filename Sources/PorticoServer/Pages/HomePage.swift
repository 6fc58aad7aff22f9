import PorticoHTTP

/// `GET /`: what this server is and where to go from here.
///
/// Why: `/` is the first URL `portico serve` prints, and a bare "Not Found" there tells a
/// newcomer nothing. The page names the server, links the demo (with `--demo`), Your Account,
/// and what an app developer needs: the discovery document, the JWKS and how to register an
/// app. It says nothing about any one person, so it is rendered once per language.
enum HomePage {
    /// Adds `/`, sending a browser that used another name of this server to the issuer first
    /// (see ``IssuerHostRedirect``), so that the links it follows set cookies on one name.
    static func register(on router: Router, environment: PageEnvironment, demo: Bool) {
        router.get("/") { request in
            if let redirect = IssuerHostRedirect.redirect(request, issuer: environment.issuer) { return redirect }
            let language = request.pageLanguage()
            var response = page(issuer: environment.issuer, demo: demo, language: language)
            response.headers["Vary"] = "Accept-Language"
            return response
        }
    }

    /// The page in `language`.
    static func page(issuer: String, demo: Bool, language: PageLanguage) -> Response {
        let discovery = issuer + "/.well-known/openid-configuration"
        var items: [String] = []
        if demo {
            items.append(#"<li><a href="/demo" id="home-demo">\#(text.demo[language])</a></li>"#)
        }
        items.append(#"<li><a href="/account" id="home-account">\#(LayoutText.yourAccount[language])</a></li>"#)
        let content = """
            <h1>\(HTML.escape(text.title[language]))</h1>
            <p>\(text.what[language])</p>
            <ul>
            \(items.joined(separator: "\n"))
            </ul>
            <h2>\(HTML.escape(text.developers[language]))</h2>
            <p>\(text.issuer[language]) <code>\(HTML.escape(issuer))</code></p>
            <ul>
            <li><a href="/.well-known/openid-configuration" id="home-discovery">\(HTML.escape(discovery))</a> \
            (\(text.discovery[language]))</li>
            <li><a href="/oauth/jwks" id="home-jwks">\(HTML.escape(issuer))/oauth/jwks</a> \
            (\(text.jwks[language]))</li>
            </ul>
            <p>\(text.register[language])</p>
            <pre><code>.build/release/portico client add --name "My App" --redirect-uri http://127.0.0.1:5000/callback</code></pre>
            """
        return PageLayout.page(title: text.title[language], content: content, language: language)
    }

    private static let platform = PageLayout.platformName

    private static let text = (
        title: Localized("Login with \(platform)", zh: "通过 \(platform) 登录"),
        what: Localized(
            "This server is \(platform), an OAuth 2.1 and OpenID Connect identity provider: apps let people "
                + "sign in with their \(platform) account and share what they allow.",
            zh: "此服务器是 \(platform)，一个 OAuth 2.1 和 OpenID Connect 身份提供方：应用可让用户用 \(platform) 账户登录，"
                + "并分享用户允许的信息。"),
        demo: Localized("Try the demo app", zh: "试用演示应用"),
        developers: Localized("For app developers", zh: "面向应用开发者"),
        issuer: Localized("Issuer:", zh: "签发者（issuer）："),
        discovery: Localized("discovery document", zh: "发现文档"),
        jwks: Localized("public keys to verify ID tokens", zh: "用于验证 ID 令牌的公钥"),
        register: Localized(
            "Register an app on this server's machine (PKCE with S256 is required for every app):",
            zh: "在此服务器所在的机器上注册应用（每个应用都必须使用 S256 的 PKCE）：")
    )
}
