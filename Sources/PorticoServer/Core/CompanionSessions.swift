import Foundation
import PorticoCrypto
import PorticoStore

/// Where companion sessions begin and how their access tokens name them.
///
/// A companion client's sign-in (authorization code or device grant) starts a refresh-token
/// family; the token endpoint records it as a ``CompanionSession`` and writes the session's id
/// into every access token the family issues, as the `companion_session` claim, so that ending
/// the session (Your Account's Sign out, a disabled account, a password reset, a reused refresh
/// token: anything that revokes the family) refuses those tokens at once.
///
/// The agent names its device with the **`agent_host`** form parameter of the token request
/// that signs it in (`grant_type=authorization_code` or
/// `urn:ietf:params:oauth:grant-type:device_code`); Your Account shows the session as
/// "Portico agent on <agent_host>". It is a label, not an identity: control characters are
/// dropped, runs of spaces folded, and it is cut at ``maximumHostNameLength`` characters; a
/// missing or blank one is shown as an unnamed device. Refreshes keep the name given at sign-in.
enum CompanionSessions {
    /// The access token claim naming the companion session.
    static let claim = "companion_session"
    /// The token request's parameter naming the agent's device.
    static let hostParameter = "agent_host"
    /// The longest host name kept, in characters.
    static let maximumHostNameLength = 64

    /// `raw` cleaned for display, or nil when nothing printable is left.
    static func hostName(_ raw: String?) -> String? {
        guard let raw else { return nil }
        let printable = raw.unicodeScalars.map { scalar -> Character in
            scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
                || scalar.properties.isWhitespace ? " " : Character(scalar)
        }
        let words = String(printable).split(separator: " ", omittingEmptySubsequences: true)
        let name = String(words.joined(separator: " ").prefix(maximumHostNameLength))
        return name.isEmpty ? nil : name
    }

    /// At the token endpoint: when `issuance` gives a person's companion client the `companion`
    /// scope with a refresh token, records the session of that refresh family (the first time,
    /// with the `agent_host` of `parameters`) and names it in the access token.
    static func attach(
        _ parameters: OAuthParameters, to issuance: inout TokenIssuance, client: Client, store: any Store, now: Date
    ) throws {
        guard issuance.accessToken.scopes.contains(CompanionClients.scope), let identity = issuance.identity,
            let refreshToken = issuance.refreshToken, let familyID = RefreshToken.familyID(of: refreshToken)
        else { return }
        let hostName = hostName(parameters[hostParameter])
        let session = try store.transaction { transaction throws -> CompanionSession? in
            guard try transaction.isCompanionClient(id: client.id) else { return nil }
            if let existing = try transaction.companionSession(familyID: String(familyID)) { return existing }
            let session = CompanionSession(
                familyID: String(familyID), userID: identity.user.id, clientID: client.id, hostName: hostName,
                createdAt: now)
            try transaction.insert(session)
            try transaction.append(
                AuditEvent(
                    occurredAt: now, actor: identity.user.id, action: "companion.session.start", subject: client.id,
                    details: ([
                        "companion_session": .string(session.id), "host": hostName.map(JSONValue.string) ?? .null,
                    ]
                        as JSONValue).jsonString))
            return session
        }
        guard let session else { return }
        issuance.accessToken.additionalClaims[claim] = .string(session.id)
    }

    /// Whether the companion session `id` has ended (or never was), read in `transaction`.
    static func hasEnded(_ id: String, in transaction: any StoreTransaction) throws -> Bool {
        try liveSession(id, in: transaction) == nil
    }

    /// The companion session `id` while it lasts (its refresh family unrevoked), read in
    /// `transaction`; nil once it has ended or if it never was.
    static func liveSession(_ id: String, in transaction: any StoreTransaction) throws -> CompanionSession? {
        guard let session = try transaction.companionSession(id: id),
            let family = try transaction.refreshFamily(id: session.familyID), !family.isRevoked
        else { return nil }
        return session
    }
}
