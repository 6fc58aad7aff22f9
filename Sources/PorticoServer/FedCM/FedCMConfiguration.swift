import Foundation
import PorticoCrypto
import PorticoHTTP

/// `GET /.well-known/web-identity`, `GET /fedcm/config.json` and the brand icon: how a browser
/// finds Portico's FedCM endpoints and draws its button (DESIGN, "FedCM").
///
/// The paths of every FedCM endpoint are named here once.
enum FedCMConfiguration {
    static let wellKnownPath = "/.well-known/web-identity"
    static let configPath = "/fedcm/config.json"
    static let accountsPath = "/fedcm/accounts"
    static let clientMetadataPath = "/fedcm/client_metadata"
    static let assertionPath = "/fedcm/assertion"
    static let disconnectPath = "/fedcm/disconnect"
    static let loginPath = "/fedcm/login"
    static let continuePath = "/fedcm/continue"
    static let iconPath = "/fedcm/icon.png"

    /// Portico's colours (the brand bar's) for the browser's dialog.
    static let backgroundColor = "#131921"
    static let textColor = "#ffffff"
    /// The icon's side in pixels.
    static let iconSize = 64

    /// `{"provider_urls": [config], "accounts_endpoint", "login_url"}`: Chromium asks the
    /// well-known file itself to name the accounts endpoint and the login URL of a provider
    /// that has a client metadata endpoint, so that a config file cannot point them elsewhere
    /// per app (a way to track people across sites).
    static func wellKnown(issuer: String) -> JSONValue {
        [
            "provider_urls": [.string(issuer + configPath)], "accounts_endpoint": .string(issuer + accountsPath),
            "login_url": .string(issuer + loginPath),
        ]
    }

    /// The config file.
    static func config(issuer: String) -> JSONValue {
        [
            "accounts_endpoint": .string(issuer + accountsPath),
            "client_metadata_endpoint": .string(issuer + clientMetadataPath),
            "id_assertion_endpoint": .string(issuer + assertionPath),
            "disconnect_endpoint": .string(issuer + disconnectPath),
            "login_url": .string(issuer + loginPath),
            "branding": [
                "background_color": .string(backgroundColor),
                "color": .string(textColor),
                "name": .string(PageLayout.platformName),
                "icons": [["url": .string(issuer + iconPath), "size": .integer(Int64(iconSize))]],
            ],
        ]
    }

    /// A JSON answer browsers must not cache past a deploy.
    static func json(_ value: JSONValue) -> Response {
        var response = Response.json(raw: value.jsonString)
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response
    }

    /// The icon: Portico's "P" on its yellow, 64 × 64 PNG (FedCM draws PNG, not SVG).
    static let icon = Assets.Asset(
        bytes: Array(
            Data(
                base64Encoded:
                    "iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAIAAAAlC+aJAAAAiUlEQVR42u3Zuw2AMAwFwOwADSX7L8Q2sAEI5WMHTnLr4orIeXY5j3XqKgAAAAAAAAAAwwHLtr+t6QGdMDGAhoxIQBNGPKDSkAJQYwCINnQBtO1KBHjsBRgCuGkHAPCIzQGT2GdOHpDI/pCJs28lpl9sAQAAAAAAAAAAAAC41AMAAAAAAAB8HXABaExD4b8THuMAAAAASUVORK5CYII="
            ) ?? Data()), contentType: "image/png")
}
