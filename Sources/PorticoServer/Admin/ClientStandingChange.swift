import Foundation
import PorticoStore

/// `portico client suspend | resume | verify`: the operator's say over an app.
///
/// A suspended app signs nobody in (its authorization requests get a page saying so), its token
/// requests get `invalid_client`, and its access tokens are refused at once on every node: the
/// token's standing, read from the store on each use, includes the app's suspension. Resuming
/// lets its unexpired tokens work again; nothing issued is deleted.
public enum ClientStandingChange: String, Sendable {
    /// Stop the app.
    case suspend
    /// Let a suspended app work again.
    case resume
    /// Mark the app verified by the operator.
    case verify

    /// Applies the change to the client `id`.
    public func apply(toClient id: String, in store: any Store, now: Date = Date()) throws(AdminError) {
        let found: Bool
        do {
            found = try store.transaction { transaction in
                let found: Bool
                switch self {
                case .suspend: found = try transaction.setClientSuspended(id: id, at: now)
                case .resume: found = try transaction.setClientSuspended(id: id, at: nil)
                case .verify: found = try transaction.markClientVerified(id: id)
                }
                if found {
                    try transaction.append(
                        AuditEvent(occurredAt: now, actor: "cli", action: "client.\(rawValue)", subject: id))
                }
                return found
            }
        } catch {
            throw AdminError.wrapping(error)
        }
        guard found else { throw .notFound("no client with id \(id)") }
    }
}
