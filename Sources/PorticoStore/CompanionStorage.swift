import Foundation

/// Companion clients, their sessions and consent tickets (`portico-agent`, DESIGN "The
/// companion").
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol CompanionStorage {
    /// Marks the client `clientID` as a first-party companion (`portico client add --companion`).
    func markCompanionClient(id clientID: String, at now: Date) throws
    /// Whether `clientID` is a companion client.
    func isCompanionClient(id clientID: String) throws -> Bool
    /// Every companion client's id.
    func companionClientIDs() throws -> Set<String>

    /// Records a companion session (one per refresh family).
    func insert(_ session: CompanionSession) throws
    /// The session with this id.
    func companionSession(id: String) throws -> CompanionSession?
    /// The session whose refresh family is `familyID`.
    func companionSession(familyID: String) throws -> CompanionSession?
    /// A person's sessions whose family is neither revoked nor past its current token's expiry
    /// at `now`, newest first.
    func liveCompanionSessions(userID: String, now: Date) throws -> [CompanionSession]

    /// Stores a ticket (only its hash).
    func insert(_ ticket: CompanionTicket) throws
    /// Redeems a ticket, as one conditional update: if the ticket is unused, unexpired at
    /// `now` and was handed to `sessionID`, it is marked used and returned; else nil and
    /// nothing changed.
    func consumeCompanionTicket(_ ticket: String, sessionID: String, now: Date) throws -> CompanionTicket?
}
