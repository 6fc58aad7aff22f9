/// `/fedcm/fedcm.js`: the one script of FedCM's popups, a static file so the pages' CSP
/// (`script-src 'self'`) allows it without a nonce.
///
/// On a page with `#fedcm-done` it tells the browser the popup is done: with `data-token` (a
/// code, after Portico's consent) `IdentityProvider.resolve(token)`, which hands it to the app
/// as the assertion; without, `IdentityProvider.close()` (signed in at `login_url`, or the
/// consent cancelled). Opened outside FedCM, where `IdentityProvider` is missing, it does
/// nothing and the page says the window may be closed.
enum FedCMScript {
    static let path = "/fedcm/fedcm.js"
    static let asset = Assets.Asset(text: text, contentType: "text/javascript; charset=utf-8")
    /// The tag that loads it.
    static var tag: String { "<script src=\"\(path)?v=\(asset.version)\" defer></script>\n" }

    private static let text = """
        "use strict";
        document.addEventListener("DOMContentLoaded", function () {
          var done = document.getElementById("fedcm-done");
          if (!done || typeof IdentityProvider === "undefined") { return; }
          var token = done.getAttribute("data-token");
          try {
            if (token) { IdentityProvider.resolve(token); } else { IdentityProvider.close(); }
          } catch (error) {
            // Not opened by FedCM: the page's words say what to do.
          }
        });

        """
}
