import Foundation
import PorticoCrypto
import PorticoHTTP

/// `GET /sdk/portico.js` and `GET /sdk/<version>/portico.js`: the web SDK, "Login with Portico"
/// for any web page (FedCM, else a popup, else a redirect; see ``WebSDKScript``).
///
/// Apps load it from their own origin, pinned with `<script integrity=… crossorigin="anonymous">`,
/// so both answers carry `Access-Control-Allow-Origin: *` (a CORS-enabled fetch is what lets the
/// browser check the hash) and `Cross-Origin-Resource-Policy: cross-origin`. The versioned URL's
/// bytes never change, so browsers may keep it for a year (`immutable`); the bare URL is the
/// current version, cached briefly so a new release reaches pages that do not pin one.
public enum WebSDK {
    /// The SDK's version, part of the pinned URL. Bump it with every change to the script.
    public static let version = "1.0.0"
    /// The current version's path, for `<script src>` tags that pin it.
    public static let versionedPath = "/sdk/\(version)/portico.js"
    /// The path of whatever version is current.
    public static let latestPath = "/sdk/portico.js"

    /// The script with its validator.
    static let script = Assets.Asset(text: WebSDKScript.text, contentType: "text/javascript; charset=utf-8")

    /// The base64 SHA-384 of the script, as a `<script integrity>` value (`sha384-…`).
    public static var integrity: String {
        "sha384-" + Data(Digest.sha384.hash(script.body)).base64EncodedString()
    }

    /// Adds both routes.
    static func register(on router: Router) {
        router.get(versionedPath) { respond(to: $0, cacheControl: "public, max-age=31536000, immutable") }
        router.get(latestPath) { respond(to: $0, cacheControl: "public, max-age=300") }
    }

    private static func respond(to request: Request, cacheControl: String) -> Response {
        var response = script.response(to: request)
        response.headers["Cache-Control"] = cacheControl
        response.headers["Access-Control-Allow-Origin"] = "*"
        response.headers["Cross-Origin-Resource-Policy"] = "cross-origin"
        return response
    }
}
