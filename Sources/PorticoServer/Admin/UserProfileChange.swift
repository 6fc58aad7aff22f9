import Foundation
import PorticoStore

/// `portico user update`: an operator corrects a person's name or e-mail address.
///
/// One transaction with its audit event (the user id only) and the Shared Signals it owes the
/// apps the person allowed: CAEP `token-claims-change` with the new claims each app's consent
/// covers, and RISC `identifier-changed` for a new address, under one `txn`. A new address is
/// not verified until the person follows a mailed link.
public enum UserProfileChange {
    /// Sets `name` and/or `email` (nil: unchanged) of the account named by `reference`; returns
    /// it as it is now.
    public static func update(
        _ reference: String, name: String?, email: String?, in store: any Store, now: Date = Date()
    ) throws(AdminError) -> UserRecord {
        guard name != nil || email != nil else { throw .invalid("give --name N and/or --email E") }
        let name = try name.map { name throws(AdminError) in
            try AdminText.checked(name, field: "name", maximumLength: 200)
        }
        let email = try email.map { email throws(AdminError) -> String in
            let email = email.trimmingSpaces
            guard UserRegistration.looksLikeEmail(email) else {
                throw .invalid("'\(email)' is not an e-mail address (expected name@example.com)")
            }
            return email
        }
        let found = try UserAdministration.find(reference, in: store)
        do {
            return try store.transaction { transaction in
                guard var user = try transaction.user(id: found.id) else {
                    throw AdminError.notFound("no user with id or e-mail address \(reference)")
                }
                let newName = name.flatMap { $0 == user.name ? nil : $0 }
                let newEmail = email.flatMap { $0.lowercased() == user.email.lowercased() ? nil : $0 }
                guard newName != nil || newEmail != nil else { return user }
                if let newName { user.name = newName }
                if let newEmail {
                    user.email = newEmail
                    user.isEmailVerified = false
                }
                user.updatedAt = now
                try transaction.update(user)
                var events = [SignalAnnouncement.Content.claimsChange(name: newName, email: newEmail)]
                if let newEmail { events.append(.identifierChanged(email: newEmail)) }
                try SignalAnnouncement.announce(events, userID: user.id, now: now, in: transaction)
                try transaction.append(
                    AuditEvent(occurredAt: now, actor: "cli", action: "user.update", subject: user.id))
                return user
            }
        } catch let error as StoreError {
            if case .duplicate = error { throw .conflict("another account has the address \(email ?? "")") }
            throw .storage(error.description)
        } catch {
            throw AdminError.wrapping(error)
        }
    }
}
