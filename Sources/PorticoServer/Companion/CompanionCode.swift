import Foundation
import PorticoCrypto
import PorticoStore

/// The authorization code a companion obtains for an app: the same record the authorization
/// endpoint stores (single use, 60 s, bound to the app's client, redirect URI, PKCE challenge,
/// nonce, resource and DPoP key), so the app redeems it at `/oauth/token` with its own verifier and the
/// companion never sees the app's tokens.
enum CompanionCode {
    /// Stores a new code for `request` on behalf of `caller`'s person in `transaction`, and
    /// returns it.
    static func issue(
        for request: AuthorizationRequest, caller: CompanionCaller, codeLifetime: TimeInterval, now: Date,
        in transaction: any StoreTransaction
    ) throws -> String {
        let code = SecureRandom.token()
        var stored = AuthorizationCode(
            code: code, clientID: request.clientID, userID: caller.user.id, redirectURI: request.redirectURI,
            scopes: request.scopes, codeChallenge: request.codeChallenge, nonce: request.nonce,
            authTime: caller.authTime, sessionHashedID: nil, createdAt: now,
            expiresAt: now.addingTimeInterval(codeLifetime))
        stored.resource = request.resource
        // A pushed request's DPoP key (or `dpop_jkt`) binds the code, as at `/oauth/authorize`.
        stored.dpopKeyThumbprint = request.dpopKeyThumbprint
        try transaction.insert(stored)
        return code
    }

    /// The audit record of something the companion did for `caller` about the app `clientID`.
    static func auditEvent(
        _ action: String, caller: CompanionCaller, clientID: String, now: Date, details: [String: JSONValue] = [:]
    ) -> AuditEvent {
        var details = details
        details["companion_session"] = .string(caller.session.id)
        details["companion_client_id"] = .string(caller.session.clientID)
        return AuditEvent(
            occurredAt: now, actor: caller.user.id, action: action, subject: clientID,
            details: JSONValue.object(details).jsonString)
    }
}
