import Foundation
import PorticoCrypto
import PorticoStore

/// Where companion sessions begin and how their access tokens name them.
///
/// A companion client's sign-in (authorization code or device grant) starts a refresh-token
/// family; ``CompanionSessionStep`` records it as a ``CompanionSession`` and writes the session's id
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
