import PorticoCrypto
import PorticoHTTP

/// The pages' one stylesheet and one small script, served from memory with caching headers.
///
/// Both are constants compiled into the binary: pages link them with a content hash in the
/// query (`?v=…`), so browsers may cache them for a day and still pick up a new version at
/// once; the `ETag` lets a revalidating browser get a bodiless 304.
enum Assets {
    /// A static file: its body, media type and validator.
    struct Asset: Sendable {
        /// The bytes sent.
        let body: [UInt8]
        /// The `Content-Type`.
        let contentType: String
        /// The strong validator: a quoted prefix of the body's SHA-256.
        let entityTag: String
        /// A short version string for cache-busting links.
        let version: String

        /// An asset of `text`, with its validator and version computed once.
        init(text: String, contentType: String) {
            self.init(bytes: Array(text.utf8), contentType: contentType)
        }

        /// An asset of `bytes` (an image), with its validator and version computed once.
        init(bytes: [UInt8], contentType: String) {
            body = bytes
            self.contentType = contentType
            let digest = Base64URL.encode(Digest.sha256.hash(body))
            version = String(digest.prefix(12))
            entityTag = "\"\(digest.prefix(22))\""
        }

        /// The answer to `request`: 304 when its `If-None-Match` names this version, else the body.
        func response(to request: Request) -> Response {
            var response: Response
            if let match = request.headers["If-None-Match"],
                match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == entityTag })
            {
                response = Response(status: .notModified)
            } else {
                response = Response(status: .ok, body: body)
                response.headers["Content-Type"] = contentType
            }
            response.headers["Cache-Control"] = "public, max-age=86400"
            response.headers["ETag"] = entityTag
            response.headers["X-Content-Type-Options"] = "nosniff"
            return response
        }
    }

    /// `/assets/portico.css`.
    static let stylesheet = Asset(text: Stylesheet.text, contentType: "text/css; charset=utf-8")
    /// `/assets/portico.js`: progressive enhancement only (the "Show password" box).
    static let script = Asset(text: scriptText, contentType: "text/javascript; charset=utf-8")

    /// The stylesheet's URL with its version, for `<link>`.
    static var stylesheetURL: String { "/assets/portico.css?v=\(stylesheet.version)" }
    /// The script's URL with its version, for `<script src>`.
    static var scriptURL: String { "/assets/portico.js?v=\(script.version)" }

    /// Adds the two asset routes.
    static func register(on router: Router) {
        router.get("/assets/portico.css") { stylesheet.response(to: $0) }
        router.get("/assets/portico.js") { script.response(to: $0) }
    }

    private static let scriptText = """
        "use strict";
        document.documentElement.classList.remove("no-js");
        document.documentElement.classList.add("js");
        document.addEventListener("DOMContentLoaded", function () {
          var toggle = document.getElementById("show-password");
          var fields = ["password", "password_confirmation"].map(function (id) {
            return document.getElementById(id);
          }).filter(function (field) { return field; });
          if (!toggle || fields.length === 0) { return; }
          var apply = function () {
            fields.forEach(function (field) { field.type = toggle.checked ? "text" : "password"; });
          };
          toggle.addEventListener("change", apply);
          apply();
        });

        """
}
