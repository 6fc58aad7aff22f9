import Foundation
import PorticoStore

/// Counts a person's sign-in to an app for the developer console's chart of sign-ins per day
/// (``SignInCountStorage``), in the grant's transaction: a code or device grant that is refused
/// counts nothing, and one that commits is counted exactly once, on whichever node.
///
/// A sign-in is a grant that begins a person's use of the app (an authorization code, FedCM's
/// included, or an approved device code); refreshing, exchanging or narrowing tokens the app
/// already has is not one.
struct SignInCountStep: IssuanceStep {
    /// The grant types that begin a sign-in, with their dialects.
    static let signInGrantTypes: Set<String> = [
        AuthorizationCodeGrant.grantType, DeviceCodeGrant.grantType, DeviceCodeGrant.amazonGrantType,
    ]

    /// The clock that dates a sign-in.
    let now: @Sendable () -> Date

    func mayRefuse(_ request: TokenRequest) -> Bool {
        false
    }

    func applies(to issuance: TokenIssuance, for request: TokenRequest) -> Bool {
        issuance.identity != nil && Self.signInGrantTypes.contains(request.grantType)
    }

    func shape(_ issuance: inout TokenIssuance, for request: TokenRequest, in transaction: any StoreTransaction)
        throws
    {
        try transaction.countSignIn(clientID: request.client.client.id, at: now())
    }
}
