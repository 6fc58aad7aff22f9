import Foundation

/// Pushed authorization requests (RFC 9126): stored under a hash of their `request_uri`'s
/// random part and taken once, on whichever node the browser reaches.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol PushedRequestStorage {
    /// Keeps `request` under `reference` (the random part of its `request_uri`); only a hash of
    /// `reference` is stored. A reference already stored throws ``StoreError/duplicate(field:)``.
    func insertPushedRequest(_ request: PushedAuthorizationRequest, reference: String) throws

    /// The request stored under `reference` for `clientID`, removed in the same step, or nil
    /// when there is none, it is another client's, or it expired at `now` (then nothing is
    /// removed). Conditional: of two racing calls with one reference, on one node or two, at most
    /// one gets the request.
    func takePushedRequest(reference: String, clientID: String, now: Date) throws -> PushedAuthorizationRequest?
}
