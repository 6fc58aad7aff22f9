import PorticoHTTP
import PorticoStore

/// The app a credentialed FedCM request is for, checked: known, not suspended, and asked for
/// from one of its registered web origins (the console's or `--web-origin`'s, through
/// ``DeveloperStorage/webOrigins(clientID:)``).
struct FedCMClient: Sendable {
    /// The app.
    let client: Client
    /// The request's `Origin`, one of the app's.
    let origin: String

    /// The app `clientID` names for `request`, or the refusal: an unknown or suspended app is
    /// ``FedCMError/unauthorizedClient``; an origin missing or not the app's is
    /// ``FedCMError/originNotAllowed``. Neither answer carries CORS.
    static func find(clientID: String?, for request: Request, in transaction: any StoreTransaction) throws
        -> FedCMClient
    {
        guard let clientID, !clientID.isEmpty, clientID.utf8.count <= 200, StoredText.canHold(clientID) else {
            throw FedCMError.invalidRequest("The parameter client_id is missing.")
        }
        // An app that must push its requests (PAR, FAPI 2.0) signs nobody in around them.
        guard let client = try transaction.client(id: clientID), client.suspendedAt == nil, !client.requiresPAR else {
            throw FedCMError.unauthorizedClient
        }
        guard let origin = request.headers["Origin"],
            try transaction.webOrigins(clientID: clientID).contains(origin.lowercased())
        else {
            throw FedCMError.originNotAllowed
        }
        return FedCMClient(client: client, origin: origin)
    }
}
