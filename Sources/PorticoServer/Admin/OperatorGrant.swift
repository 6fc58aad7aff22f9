import Foundation
import PorticoStore

/// `portico user admin ID|EMAIL --on|--off`: who may open the operator's list of every app in
/// the developer console (`/developer/operator`).
public enum OperatorGrant {
    /// What a grant did.
    public struct Outcome: Sendable {
        /// The person.
        public let user: UserRecord
        /// Whether it changed anything (false when they already were, or were not, one).
        public let changed: Bool
    }

    /// Makes the person named by `reference` (id or e-mail address) an operator, or not.
    public static func set(_ on: Bool, reference: String, in store: any Store, now: Date = Date()) throws(AdminError)
        -> Outcome
    {
        let user = try UserAdministration.find(reference, in: store)
        do {
            let changed = try store.transaction { transaction in
                let changed = try transaction.setOperator(userID: user.id, on: on, at: now)
                if changed {
                    try transaction.append(
                        AuditEvent(
                            occurredAt: now, actor: "cli", action: on ? "user.admin_on" : "user.admin_off",
                            subject: user.id))
                }
                return changed
            }
            return Outcome(user: user, changed: changed)
        } catch {
            throw AdminError.wrapping(error)
        }
    }
}
