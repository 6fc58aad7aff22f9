import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `POST /fedcm/assertion`: the ID assertion endpoint. The browser posts `client_id`,
/// `account_id`, `nonce`, `disclosure_text_shown`, `is_auto_selected` and `params` (a JSON
/// object as a string; older builds spread it as `param_<name>` fields); the answer is
/// `{"token": "<authorization code>"}` (``FedCMCode``) with CORS for the app's origin only.
///
/// Consent: a person who already allowed the app what it asks gets a code at once; a first
/// sign-in asking only `openid profile email` is allowed by the browser's own disclosure;
/// anything more (or a first sign-in without the disclosure) gets `continue_on`, Portico's
/// consent page in a popup (``FedCMContinueEndpoint``), which ends with
/// `IdentityProvider.resolve(code)`. Every check comes before any write.
struct FedCMAssertionEndpoint: Sendable {
    /// The provider's store, clock and lifetimes.
    let environment: PageEnvironment

    /// Adds the route.
    func register(on router: Router) {
        router.postAsync(FedCMConfiguration.assertionPath) { request in
            WebIdentityRequest.answer(request, issuer: environment.issuer) { try assert(request) }
        }
    }

    private func assert(_ request: Request) throws -> Response {
        let form: FormParameters
        do { form = try request.form() } catch { throw FedCMError.invalidRequest("The body must be a form.") }
        let app = try environment.store.read { transaction in
            try FedCMClient.find(clientID: single(form, "client_id"), for: request, in: transaction)
        }
        do {
            return try answer(form, app: app, request: request)
        } catch let error as FedCMError {
            throw FedCMRefusal(error: error, corsOrigin: app.origin)
        }
    }

    private func answer(_ form: FormParameters, app: FedCMClient, request: Request) throws -> Response {
        guard let signedIn = try LoginStatus.session(of: request, environment: environment),
            try single(form, "account_id") == signedIn.user.id
        else {
            throw FedCMError.signedOut
        }
        let params = try Self.params(form)
        let asked = try FedCMCode.Request.read(
            challenge: params["code_challenge"], method: params["code_challenge_method"], scope: params["scope"],
            nonce: single(form, "nonce") ?? params["nonce"], allowed: app.client.allowedScopes)
        let disclosed = try single(form, "disclosure_text_shown") == "true"
        let now = environment.now()
        let needsConsent = try environment.store.transaction { transaction -> Bool in
            do {
                try UnverifiedAppLimit.check(app.client, userID: signedIn.user.id, in: transaction)
            } catch is PageProblem {
                throw FedCMError.accessDenied
            }
            let granted = try transaction.consent(userID: signedIn.user.id, clientID: app.client.id)
            if let granted, granted.covers(asked.scopes) { return false }
            let onlyDisclosed = asked.scopes.allSatisfy(FedCMCode.Request.disclosedScopes.contains)
            guard onlyDisclosed && disclosed else { return true }
            // The browser showed its disclosure for exactly these: remembered like a consent.
            try ConsentPolicy().grant(
                userID: signedIn.user.id, clientID: app.client.id, scopes: Set(asked.scopes), in: transaction, now: now)
            return false
        }
        var response: Response
        if needsConsent {
            let location = FedCMContinueEndpoint.location(
                issuer: environment.issuer, clientID: app.client.id, request: asked)
            response = Response.json(raw: JSONValue.object(["continue_on": .string(location)]).jsonString)
        } else {
            let code = try FedCMCode.issue(asked, client: app.client, signedIn: signedIn, environment: environment)
            response = Response.json(raw: JSONValue.object(["token": .string(code)]).jsonString)
        }
        response.headers["Cache-Control"] = "no-store"
        FedCMCORS.allow(&response, origin: app.origin)
        return response
    }

    /// `params`: the JSON object Chromium sends as a string, else the `param_<name>` fields of
    /// older builds. Only string members are kept.
    static func params(_ form: FormParameters) throws(FedCMError) -> [String: String] {
        var values: [String: String] = [:]
        let sent = form.values(for: "params")
        if sent.count > 1 { throw .invalidRequest("The parameter params is repeated.") }
        if let text = sent.first, !text.isEmpty {
            guard text.utf8.count <= 4096, let object = JSONValue(parsing: Array(text.utf8))?.objectValue else {
                throw .invalidRequest("params must be a JSON object.")
            }
            for (name, value) in object {
                guard let string = value.stringValue else { throw .invalidRequest("params.\(name) must be a string.") }
                values[name] = string
            }
            return values
        }
        for (name, value) in form where name.hasPrefix("param_") {
            let key = String(name.dropFirst("param_".count))
            if values[key] != nil { throw .invalidRequest("The parameter \(name) is repeated.") }
            values[key] = value
        }
        return values
    }
}

/// The one value of `name` in `form`: nil when absent or empty, a refusal when repeated.
func single(_ form: FormParameters, _ name: String) throws(FedCMError) -> String? {
    let values = form.values(for: name)
    if values.count > 1 { throw .invalidRequest("The parameter \(name) is repeated.") }
    guard let value = values.first, !value.isEmpty else { return nil }
    return value
}
