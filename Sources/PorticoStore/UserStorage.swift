import Foundation

/// People with platform accounts.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol UserStorage {
    /// Adds a user; throws ``StoreError/duplicate(field:)`` with `email` when the address is
    /// taken in any letter case.
    func insert(_ user: UserRecord) throws
    /// The user with this id.
    func user(id: String) throws -> UserRecord?
    /// The user with this e-mail address, compared case-insensitively.
    func user(email: String) throws -> UserRecord?
    /// Up to `limit` users, oldest first, for admin listings.
    func users(limit: Int) throws -> [UserRecord]
    /// Replaces the stored user with `user` (matched by id); throws ``StoreError/notFound(entity:id:)``.
    func update(_ user: UserRecord) throws
    /// Removes a user and, by cascade, their sessions, codes, consents, tokens and links.
    @discardableResult func deleteUser(id: String) throws -> Bool
}
