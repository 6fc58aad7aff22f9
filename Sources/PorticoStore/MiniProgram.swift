import Foundation

/// A client registered as a mini-program of a host app (`portico client add --mini-program-of`):
/// it runs inside the host and gets a person's sign-in only by the host's delegation exchange.
///
/// Why a record of its own rather than a column of ``Client``: the relation outlives the host.
/// Removing the host must leave the mini-program registered but disabled (so that its delegated
/// tokens stop working and it cannot be silently re-attached), which a cascade would not do.
public struct MiniProgram: Sendable, Hashable {
    /// The mini-program's `client_id`.
    public var clientID: String
    /// The host app it belongs to.
    public var hostClientID: String
    /// When it was registered.
    public var createdAt: Date
    /// When it was disabled (its host removed); nil while it works.
    public var disabledAt: Date?

    /// A mini-program ready to insert.
    public init(clientID: String, hostClientID: String, createdAt: Date = Date(), disabledAt: Date? = nil) {
        self.clientID = clientID
        self.hostClientID = hostClientID
        self.createdAt = createdAt
        self.disabledAt = disabledAt
    }

    /// Whether it may still be given tokens (and its tokens accepted).
    public var isEnabled: Bool { disabledAt == nil }
}
