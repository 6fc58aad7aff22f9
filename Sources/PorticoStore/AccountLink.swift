import Foundation

/// A host app's user linked to a platform account, so that mini-programs inside the host app
/// can get platform login state by token exchange.
///
/// Within one host app a host user links to one platform account and a platform account to one
/// host user.
public struct AccountLink: Sendable, Hashable {
    /// The link's own id (`link_id`), by which the host unbinds it; random, so it says nothing
    /// about the people it joins.
    public var id: String
    /// The host app (a registered client).
    public var hostClientID: String
    /// The user's identifier in the host app's own account system.
    public var hostUserID: String
    /// The platform account.
    public var platformUserID: String
    /// When the link was made.
    public var createdAt: Date

    /// A link ready to insert.
    public init(
        id: String = RecordIdentifier.random(), hostClientID: String, hostUserID: String, platformUserID: String,
        createdAt: Date = Date()
    ) {
        self.id = id
        self.hostClientID = hostClientID
        self.hostUserID = hostUserID
        self.platformUserID = platformUserID
        self.createdAt = createdAt
    }
}
