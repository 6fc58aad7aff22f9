import Foundation
import PorticoStore

/// Removes an app and everything issued to it: `portico client remove` and RFC 7592's DELETE
/// share this one path.
///
/// The store's cascades take the app's codes, consents, refresh families and registration
/// with it; a host app's mini-programs are disabled.
public enum ClientRemoval {
    /// What a removal did.
    public struct Outcome: Sendable {
        /// Whether there was such a client.
        public let removed: Bool
        /// How many of its mini-programs were disabled.
        public let disabledMiniPrograms: Int
    }

    /// Removes the client `id` in `transaction`, recording `actor` in the audit log.
    static func remove(id: String, actor: String, now: Date, in transaction: any StoreTransaction) throws -> Outcome {
        guard try transaction.deleteClient(id: id) else { return Outcome(removed: false, disabledMiniPrograms: 0) }
        try transaction.append(AuditEvent(actor: actor, action: "client.remove", subject: id))
        let disabled = try transaction.disableMiniPrograms(hostClientID: id, now: now)
        return Outcome(removed: true, disabledMiniPrograms: disabled)
    }

    /// Removes the client `id` from `store` (the command line's form).
    public static func remove(id: String, from store: any Store, now: Date = Date()) throws(AdminError) -> Outcome {
        do {
            return try store.transaction { try remove(id: id, actor: "cli", now: now, in: $0) }
        } catch {
            throw AdminError.wrapping(error)
        }
    }
}
