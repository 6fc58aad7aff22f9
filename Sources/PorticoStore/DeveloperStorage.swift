import Foundation

/// What a person is to an app in the developer console.
public enum DeveloperRole: String, Sendable, CaseIterable {
    /// Made the app: may edit, rotate its secret, delete it and choose co-developers.
    case owner
    /// Added by an owner: may edit the app, not rotate its secret or delete it.
    case developer
}

/// An app as the developer console lists it for one person.
public struct DeveloperApp: Sendable, Hashable {
    /// The app's `client_id`.
    public let clientID: String
    /// Who owns it.
    public let ownerID: String
    /// What the person asking is to it.
    public let role: DeveloperRole
    /// The browser origins it calls from (console field `web_origin`).
    public let webOrigins: [String]
    /// When it was made in the console.
    public let createdAt: Date

    /// A listed app.
    public init(clientID: String, ownerID: String, role: DeveloperRole, webOrigins: [String], createdAt: Date) {
        self.clientID = clientID
        self.ownerID = ownerID
        self.role = role
        self.webOrigins = webOrigins
        self.createdAt = createdAt
    }
}

/// The developer console's records (migration 21): acceptance of the developer terms, who owns
/// and co-develops an app, and a client secret's rotation with an overlap.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements". Who may do what with an
/// app is decided in `PorticoServer`; these are primitives. Only hashes of secrets are kept.
public protocol DeveloperStorage {
    /// Records that `userID` accepted the developer terms at `time` (a second acceptance keeps
    /// the first time).
    func acceptDeveloperTerms(userID: String, at time: Date) throws
    /// When `userID` accepted the developer terms; nil if never.
    func developerTermsAcceptedAt(userID: String) throws -> Date?
    /// Records that `ownerID` made the client `clientID` in the console, with its web origins.
    func insertDeveloperApp(clientID: String, ownerID: String, webOrigins: [String], createdAt: Date) throws
    /// Replaces the web origins of a console app; false when it is not one.
    func setDeveloperAppOrigins(clientID: String, webOrigins: [String]) throws -> Bool
    /// Makes `webOrigins` the origins the operator registered for `clientID` (`portico client
    /// add --web-origin`, migration 22); an empty list forgets them.
    func setClientWebOrigins(clientID: String, webOrigins: [String]) throws
    /// Every web origin of `clientID`: its console app's, then the operator's, without repeats;
    /// the one lookup FedCM's assertion endpoint checks a request's `Origin` against.
    func webOrigins(clientID: String) throws -> [String]
    /// Adds (or changes the role of) a co-developer of a console app.
    func setDeveloperCollaborator(clientID: String, userID: String, role: DeveloperRole, at time: Date) throws
    /// Removes a co-developer; false when `userID` was not one.
    func removeDeveloperCollaborator(clientID: String, userID: String) throws -> Bool
    /// The co-developers of a console app and their roles, in the order they were added.
    func developerCollaborators(clientID: String) throws -> [(userID: String, role: DeveloperRole)]
    /// The console app `clientID` as `userID` sees it; nil when it is not a console app or the
    /// person neither owns nor co-develops it.
    func developerApp(clientID: String, userID: String) throws -> DeveloperApp?
    /// The console apps `userID` owns or co-develops, newest first.
    func developerApps(userID: String) throws -> [DeveloperApp]
    /// Every console app (role ``DeveloperRole/owner``, as its owner sees it), newest first.
    func allDeveloperApps() throws -> [DeveloperApp]
    /// Makes `newHash` the client's secret hash and keeps the one it replaces as the previous
    /// secret until `previousExpiresAt`; false when the client has no secret.
    func rotateClientSecret(id: String, newHash: [UInt8], previousExpiresAt: Date) throws -> Bool
    /// Makes `userID` an operator (`on`, recording `time`) or not; false when nothing changed.
    func setOperator(userID: String, on: Bool, at time: Date) throws -> Bool
    /// Whether `userID` is an operator (`portico user admin ID --on`).
    func isOperator(userID: String) throws -> Bool
}
