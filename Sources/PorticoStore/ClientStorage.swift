import Foundation

/// Registered apps (OAuth clients).
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol ClientStorage {
    /// Registers a client.
    func insert(_ client: Client) throws
    /// The client with this `client_id`.
    func client(id: String) throws -> Client?
    /// All clients, oldest first.
    func clients() throws -> [Client]
    /// Replaces the stored client with `client` (matched by id).
    func update(_ client: Client) throws
    /// Removes a client and, by cascade, everything issued to it.
    @discardableResult func deleteClient(id: String) throws -> Bool
}
