import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `GET /fedcm/client_metadata?client_id=…`: the app's privacy policy (and terms, when it has
/// them) for the browser's disclosure ("… privacy policy and terms of service"). Unknown and
/// suspended apps are refused.
struct FedCMClientMetadataEndpoint: Sendable {
    /// The provider's store.
    let environment: PageEnvironment

    /// Adds the route.
    func register(on router: Router) {
        router.getAsync(FedCMConfiguration.clientMetadataPath) { request in
            WebIdentityRequest.answer(request, issuer: environment.issuer) { try metadata(request) }
        }
    }

    private func metadata(_ request: Request) throws -> Response {
        let ids = request.query.values(for: "client_id")
        guard ids.count == 1, let clientID = ids.first, !clientID.isEmpty, StoredText.canHold(clientID) else {
            throw FedCMError.invalidRequest("The parameter client_id is missing or repeated.")
        }
        guard let client = try environment.store.read({ try $0.client(id: clientID) }), client.suspendedAt == nil
        else {
            throw FedCMError.unauthorizedClient
        }
        var body: [String: JSONValue] = [:]
        if let privacy = client.privacyURL { body["privacy_policy_url"] = .string(privacy) }
        if let terms = client.termsURL { body["terms_of_service_url"] = .string(terms) }
        return FedCMConfiguration.json(.object(body))
    }
}
