import PorticoHTTP
import PorticoServer

/// The demo's web-SDK pages: `/demo/web`, a page that signs in with `<portico-login-button>`
/// from `/sdk/portico.js` (pinned by version and SRI hash, as the README tells apps to), and
/// `/demo/web/callback`, its redirect URI; both load the SDK, which answers the opener when the
/// callback runs in the sign-in popup. The page's own script posts the code and verifier to
/// `/demo/web/redeem`, where the demo's backend redeems them.
enum DemoWebPages {
    /// Their policy: as the other demo pages, plus their own scripts (the SDK and ``script``).
    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
        + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// The page's language: `en` or `zh` (from `?lang=`), for the button and `<html lang>`.
    enum Language: String, Sendable {
        case english = "en"
        case chinese = "zh"

        init(query: String?) {
            self = query?.lowercased().hasPrefix("zh") == true ? .chinese : .english
        }

        var htmlTag: String { self == .chinese ? "zh-Hans" : "en" }
    }

    /// The SDK and the page's script.
    private static var head: String {
        """
        <script src="\(WebSDK.versionedPath)" integrity="\(WebSDK.integrity)" crossorigin="anonymous" defer></script>
        <script src="/demo/web.js" defer></script>

        """
    }

    /// `/demo/web`: the button; `nonce` goes into the ID token and back to the backend.
    static func home(redirectURI: String, nonce: String, language: Language) -> Response {
        let scope = DemoSeed.requestedScopes.joined(separator: " ")
        let other =
            language == .chinese
            ? #"<a href="/demo/web?lang=en" lang="en">English</a>"#
            : #"<a href="/demo/web?lang=zh" lang="zh-Hans">中文</a>"#
        return DemoPages.page(
            title: "Sign in on the web",
            content: """
                <h1>Sign in on the web</h1>
                <p class="lead">This page signs in with Portico's web SDK, <code>\(WebSDK.versionedPath)</code>:
                the browser's own sign-in (FedCM) where it has one, else a Portico window, else a redirect.
                The page gets a one-time code, and the app's server redeems it.</p>
                <p><portico-login-button id="web-login" client-id="\(DemoPages.escape(DemoSeed.clientID))" \
                scope="\(DemoPages.escape(scope))" redirect-uri="\(DemoPages.escape(redirectURI))" \
                nonce="\(DemoPages.escape(nonce))" lang="\(language.rawValue)"></portico-login-button></p>
                \(form)
                <p class="demo-actions">\(other)<a href="/demo">The redirect demo</a></p>
                """,
            head: head, language: language.htmlTag, policy: contentSecurityPolicy)
    }

    /// `/demo/web/callback`: in the popup, the SDK hands the answer over and closes it; after a
    /// redirect, the page's script finishes the sign-in.
    static func callback() -> Response {
        DemoPages.page(
            title: "Finishing sign-in",
            content: """
                <h1>Finishing sign-in…</h1>
                \(form)
                <p class="demo-actions"><a href="/demo/web">Back to the app</a></p>
                """,
            head: head, policy: contentSecurityPolicy)
    }

    /// The form the page's script fills and posts, and where it shows a failure.
    private static let form = """
        <p class="demo-hint" id="web-error" role="alert" hidden></p>
        <form id="web-redeem" method="post" action="/demo/web/redeem" hidden>\
        <input type="hidden" name="code"><input type="hidden" name="code_verifier">\
        <input type="hidden" name="redirect_uri"></form>
        """

    /// `/demo/web.js`.
    static let script: Response = {
        var response = Response(status: .ok, body: Array(scriptText.utf8))
        response.headers["Content-Type"] = "text/javascript; charset=utf-8"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Cache-Control"] = "no-cache"
        return response
    }()

    private static let scriptText = """
        "use strict";
        (function () {
          var form = document.getElementById("web-redeem");
          var problem = document.getElementById("web-error");
          function redeem(result) {
            form.elements.code.value = result.code;
            form.elements.code_verifier.value = result.codeVerifier;
            form.elements.redirect_uri.value = result.redirectUri || "";
            form.submit();
          }
          function show(detail) {
            problem.textContent = "Sign-in failed: " + detail.error +
              (detail.error_description ? " (" + detail.error_description + ")" : "");
            problem.hidden = false;
          }
          document.addEventListener("portico-authorized", function (event) { redeem(event.detail); });
          document.addEventListener("portico-error", function (event) { show(event.detail); });
          if (location.pathname === "/demo/web/callback" && !window.Portico.popupCallbackAnswered) {
            window.Portico.handleRedirectCallback().then(redeem, show);
          }
        })();

        """
}
