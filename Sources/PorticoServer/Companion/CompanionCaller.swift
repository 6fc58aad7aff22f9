import Foundation
import PorticoHTTP
import PorticoStore

/// The companion behind a request to the companion endpoints: its access token, genuine and
/// unrevoked, granting `companion`, issued to a companion client in a companion session that is
/// still live, for a person whose account is usable. A token bound to the companion's key
/// (DPoP, RFC 9449 §7) comes with the `DPoP` scheme and a proof, as at userinfo.
///
/// Every failure is an RFC 6750 error with its `WWW-Authenticate` challenge: `invalid_token`
/// (401) for a missing, bad, expired or revoked token or an ended session, so the agent can tell
/// the person they were signed out; `insufficient_scope` (403) for a token that is not a
/// companion's.
struct CompanionCaller {
    /// The verified access token.
    let token: VerifiedAccessToken
    /// The signed-in person.
    let user: UserRecord
    /// The companion session the token was issued in.
    let session: CompanionSession

    /// When the person last entered their password for this session (the token's `auth_time`).
    var authTime: Date { token.authTime ?? session.createdAt }

    /// The caller of `request`, checked through `resource` (the gate of the resource endpoints).
    static func authenticate(_ request: Request, resource: ProtectedResource) throws -> CompanionCaller {
        let presented = try resource.presentedToken(in: request, path: request.path, formParameter: false)
        let verified = try resource.verify(presented)
        // One read: the session comes from the revocation check, which reads it anyway.
        let (token, user, (isCompanion, session)) = try resource.admit(
            verified, acceptedScopes: [CompanionClients.scope], challengeScope: CompanionClients.scope
        ) { transaction, session in (try transaction.isCompanionClient(id: verified.clientID), session) }
        guard isCompanion else {
            throw OAuthError.insufficientScope(
                "The access token was not issued to a companion client.", required: CompanionClients.scope)
        }
        guard let session, session.clientID == token.clientID, session.userID == user.id else {
            throw OAuthError.invalidToken("The access token does not belong to a companion session.")
        }
        return CompanionCaller(token: token, user: user, session: session)
    }
}
