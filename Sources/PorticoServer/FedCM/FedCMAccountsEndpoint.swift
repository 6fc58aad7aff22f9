import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `GET /fedcm/accounts`: the signed-in person as FedCM's account list, with the apps they
/// already allowed (`approved_clients`, from remembered consent), so the browser offers a
/// returning person one click; 401 when nobody is signed in, which turns the dialog off.
struct FedCMAccountsEndpoint: Sendable {
    /// The provider's store and clock.
    let environment: PageEnvironment

    /// Adds the route.
    func register(on router: Router) {
        router.getAsync(FedCMConfiguration.accountsPath) { request in
            WebIdentityRequest.answer(request, issuer: environment.issuer) { try accounts(request) }
        }
    }

    private func accounts(_ request: Request) throws -> Response {
        guard let signedIn = try LoginStatus.session(of: request, environment: environment) else {
            throw FedCMError.signedOut
        }
        let user = signedIn.user
        let approved = try environment.store.read { try $0.consents(userID: user.id) }.map(\.clientID).sorted()
        var account: [String: JSONValue] = [
            "id": .string(user.id), "name": .string(user.name), "email": .string(user.email),
            "approved_clients": .array(approved.map(JSONValue.string)),
            "login_hints": [.string(user.email)],
        ]
        if let given = user.name.split(separator: " ").first { account["given_name"] = .string(String(given)) }
        var response = FedCMConfiguration.json(["accounts": [.object(account)]])
        response.headers["Cache-Control"] = "no-store"
        return response
    }
}
