import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `POST /fedcm/disconnect` (`IdentityCredential.disconnect()` on the app's page): ends the
/// signed-in person's grant to the app as Your Account's Remove does (``AppRemoval``: consent,
/// refresh tokens and access tokens), so the next sign-in asks again, and answers
/// `{"account_id": …}` with CORS for the app's origin only. `account_hint` must name the
/// signed-in person (their account id or e-mail address).
struct FedCMDisconnectEndpoint: Sendable {
    /// The provider's store.
    let environment: PageEnvironment

    /// Adds the route.
    func register(on router: Router) {
        router.postAsync(FedCMConfiguration.disconnectPath) { request in
            WebIdentityRequest.answer(request, issuer: environment.issuer) { try disconnect(request) }
        }
    }

    private func disconnect(_ request: Request) throws -> Response {
        let form: FormParameters
        do { form = try request.form() } catch { throw FedCMError.invalidRequest("The body must be a form.") }
        let app = try environment.store.read { transaction in
            try FedCMClient.find(clientID: single(form, "client_id"), for: request, in: transaction)
        }
        do {
            guard let signedIn = try LoginStatus.session(of: request, environment: environment),
                let hint = try single(form, "account_hint"),
                hint == signedIn.user.id || hint.lowercased() == signedIn.user.email.lowercased()
            else {
                throw FedCMError.signedOut
            }
            let userID = signedIn.user.id
            let now = environment.now()
            try environment.store.transaction { transaction in
                try AppRemoval.remove(
                    clientID: app.client.id, userID: userID, action: "consent.fedcm_disconnect",
                    reason: "disconnected by the app (FedCM)", now: now,
                    accessTokenLifetime: environment.lifetimes.accessToken, in: transaction)
            }
            var response = Response.json(raw: JSONValue.object(["account_id": .string(userID)]).jsonString)
            response.headers["Cache-Control"] = "no-store"
            FedCMCORS.allow(&response, origin: app.origin)
            return response
        } catch let error as FedCMError {
            throw FedCMRefusal(error: error, corsOrigin: app.origin)
        }
    }
}
