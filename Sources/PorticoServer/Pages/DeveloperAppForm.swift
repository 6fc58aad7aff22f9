import Foundation
import PorticoHTTP
import PorticoStore

/// The fields of an app in the developer console (`/developer/apps/new` and an app's page),
/// as typed, and the ``ClientRegistration`` they stand for.
///
/// Why a registration: the console checks an app through the same path as `portico client add`
/// and `POST /oauth/register`, so all three accept the same apps and say the same words.
struct DeveloperAppForm: Sendable {
    /// The three kinds of app the console makes.
    enum AppType: String, Sendable, CaseIterable {
        /// A web app with a server: confidential, gets a secret.
        case web
        /// A phone or desktop app: public, PKCE only.
        case native
        /// A TV or device without a browser: public, the device grant.
        case device

        /// The label of its choice.
        var label: Localized {
            switch self {
            case .web: DeveloperText.webType
            case .native: DeveloperText.nativeType
            case .device: DeveloperText.deviceType
            }
        }

        /// The kind of the stored `client`.
        init(of client: Client) {
            if client.type == .confidential {
                self = .web
            } else if client.allowedGrantTypes.contains(DeviceCodeGrant.grantType) {
                self = .device
            } else {
                self = .native
            }
        }
    }

    var name = ""
    var appType = AppType.web
    /// The textarea's text, one URI a line.
    var redirectURIs = ""
    var webOrigins = ""
    var logoURL = ""
    var privacyURL = ""
    var termsURL = ""
    /// The scopes the app will ask for (checkboxes `scope`); nil: the registration's default.
    var scopes: [String]? = nil
    /// A pasted JWKS (`jwks`): the app then signs in with `private_key_jwt`, no secret.
    var jwks = ""
    /// Where the app is told of sign-outs (`backchannel_logout_uri`).
    var backchannelLogoutURI = ""
    /// Whether the app receives Shared Signals (`ssf`): it then manages its stream with
    /// client-credentials tokens.
    var sharedSignals = false

    /// The scopes a console app may ask for: the built-in ones that need no operator's say
    /// (device SSO groups, the companion and the account link do).
    static let offeredScopes = ["openid", "profile", "profile:user_id", "email", "postal_code", "offline_access"]

    /// An empty form.
    init() {}

    /// The values of a stored app.
    init(client: Client, webOrigins: [String]) {
        name = client.name
        appType = AppType(of: client)
        redirectURIs = client.redirectURIs.joined(separator: "\n")
        self.webOrigins = webOrigins.joined(separator: "\n")
        logoURL = client.logoURL ?? ""
        privacyURL = client.privacyURL ?? ""
        termsURL = client.termsURL ?? ""
        scopes = client.allowedScopes.filter { $0 != SharedSignals.manageScope }
        jwks = client.jwks ?? ""
        backchannelLogoutURI = client.backchannelLogoutURI ?? ""
        sharedSignals = client.allowedScopes.contains(SharedSignals.manageScope)
    }

    /// The values posted in `form`; an unknown `app_type` is an error of its own.
    init(form: FormParameters) throws(AdminError) {
        name = form["name"] ?? ""
        redirectURIs = form["redirect_uri"] ?? ""
        webOrigins = form["web_origin"] ?? ""
        logoURL = form["logo_url"] ?? ""
        privacyURL = form["privacy_url"] ?? ""
        termsURL = form["terms_url"] ?? ""
        // The form always posts openid (a hidden field beside its fixed box), so no `scope`
        // at all is a form from before these fields: the default.
        let posted = form.values(for: "scope")
        scopes = posted.isEmpty ? nil : posted
        jwks = form["jwks"] ?? ""
        backchannelLogoutURI = form["backchannel_logout_uri"] ?? ""
        sharedSignals = form["ssf"] == "yes"
        if let type = form["app_type"] {
            guard let known = AppType(rawValue: type) else {
                throw .invalid("app type '\(type)' is not web, native or device")
            }
            appType = known
        }
    }

    /// Non-empty trimmed lines of `text`.
    static func lines(_ text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The web origins, checked, or the first reason one is not acceptable.
    func checkedWebOrigins() throws(AdminError) -> [String] {
        var origins: [String] = []
        for line in Self.lines(webOrigins) {
            let origin = try ClientURIRules.checkedWebOrigin(line)
            if !origins.contains(origin) { origins.append(origin) }
        }
        return origins
    }

    /// The registration these values ask for: unverified, as open registrations are.
    func registration() -> ClientRegistration {
        let trimmedLogo = logoURL.trimmingCharacters(in: .whitespaces)
        let trimmedPrivacy = privacyURL.trimmingCharacters(in: .whitespaces)
        var registration = ClientRegistration(
            name: name.trimmingCharacters(in: .whitespaces), redirectURIs: Self.lines(redirectURIs),
            isPublic: appType != .web,
            grantTypes: appType == .device ? [DeviceCodeGrant.grantType, RefreshTokenGrant.grantType] : [],
            logoURL: trimmedLogo.isEmpty ? nil : trimmedLogo, privacyURL: trimmedPrivacy.isEmpty ? nil : trimmedPrivacy)
        registration.isVerified = false
        let trimmedTerms = termsURL.trimmingCharacters(in: .whitespaces)
        if !trimmedTerms.isEmpty { registration.termsURL = trimmedTerms }
        if let scopes { registration.scopes = scopes }
        let trimmedKeys = jwks.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmedKeys.isEmpty { registration.jwks = trimmedKeys }
        let trimmedLogout = backchannelLogoutURI.trimmingCharacters(in: .whitespaces)
        if !trimmedLogout.isEmpty { registration.backchannelLogoutURI = trimmedLogout }
        if sharedSignals {
            registration.isSignalReceiver = true
            registration.grantTypes = ClientRegistration.defaultGrantTypes + [ClientCredentialsGrant.grantType]
        }
        return registration
    }
}
