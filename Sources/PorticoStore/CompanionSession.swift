import Foundation

/// A companion's signed-in session on one device: the refresh-token family a companion client
/// (`portico client add --companion`) got when the person signed in to `portico-agent` there.
///
/// Why a record of its own: the family alone does not say which device it lives on, and the
/// companion's access tokens must be refused the moment the person signs it out in Your
/// Account. Each such token carries this record's ``id`` (the `companion_session` claim); the
/// session is live exactly while its family is.
public struct CompanionSession: Sendable, Hashable {
    /// A random identifier: the access tokens' `companion_session` claim and the value Your
    /// Account's Sign out posts. Not a secret (it grants nothing by itself).
    public var id: String
    /// The refresh-token family that is the session.
    public var familyID: String
    /// The person signed in.
    public var userID: String
    /// The companion client.
    public var clientID: String
    /// The device's host name as the agent reported it (`agent_host`), cleaned for display; nil
    /// when it sent none.
    public var hostName: String?
    /// When the person signed in.
    public var createdAt: Date

    /// A session ready to insert.
    public init(
        id: String = RecordIdentifier.random(), familyID: String, userID: String, clientID: String,
        hostName: String?, createdAt: Date
    ) {
        self.id = id
        self.familyID = familyID
        self.userID = userID
        self.clientID = clientID
        self.hostName = hostName
        self.createdAt = createdAt
    }
}
