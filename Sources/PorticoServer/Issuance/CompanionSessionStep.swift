import Foundation
import PorticoCrypto
import PorticoStore

/// The companion session a companion client's sign-in begins (``CompanionSessions``): recorded
/// with its refresh family, in the grant's transaction, the first time (with the `agent_host`
/// of the request), and named in every access token the family issues.
struct CompanionSessionStep: IssuanceStep {
    /// The clock sessions are dated by.
    let now: @Sendable () -> Date

    func mayRefuse(_ request: TokenRequest) -> Bool {
        false
    }

    func applies(to issuance: TokenIssuance, for request: TokenRequest) -> Bool {
        issuance.accessToken.scopes.contains(CompanionClients.scope) && issuance.identity != nil
            && issuance.refreshToken != nil
    }

    func shape(_ issuance: inout TokenIssuance, for request: TokenRequest, in transaction: any StoreTransaction)
        throws
    {
        guard let identity = issuance.identity, let refreshToken = issuance.refreshToken,
            let familyID = RefreshToken.familyID(of: refreshToken).map(String.init)
        else { return }
        let client = request.client.client
        guard try transaction.isCompanionClient(id: client.id) else { return }
        if let existing = try transaction.companionSession(familyID: familyID) {
            issuance.accessToken.additionalClaims[CompanionSessions.claim] = .string(existing.id)
            return
        }
        let hostName = CompanionSessions.hostName(request.parameters[CompanionSessions.hostParameter])
        let now = now()
        let session = CompanionSession(
            familyID: familyID, userID: identity.user.id, clientID: client.id, hostName: hostName, createdAt: now)
        try transaction.insert(session)
        let details: JSONValue = [
            "companion_session": .string(session.id), "host": hostName.map(JSONValue.string) ?? .null,
        ]
        try transaction.append(
            AuditEvent(
                occurredAt: now, actor: identity.user.id, action: "companion.session.start", subject: client.id,
                details: details.jsonString))
        issuance.accessToken.additionalClaims[CompanionSessions.claim] = .string(session.id)
    }
}
