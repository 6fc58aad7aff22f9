import Foundation
import PorticoCrypto
import PorticoStore
import Synchronization

/// Pairwise subject identifiers (OpenID Connect Core §8.1): what a client registered with
/// `--subject-type pairwise` knows a person as.
///
/// The subject is HMAC-SHA256 of the client's sector and the account id under a salt that only
/// the provider knows (kept in the store, made on first use, shared by every node), so that two
/// sectors cannot compute or compare each other's subjects even knowing account ids. Access
/// tokens of such a client carry the pairwise `sub` too, so the provider remembers each subject
/// it handed out (``StoreTransaction/recordPairwiseSubject(_:sector:userID:)``) to find the
/// person again when the token comes back to userinfo, the profile or introspection.
final class PairwiseSubjects: Sendable {
    /// The name of the salt among the provider's secrets.
    static let saltName = "pairwise_subject_salt"

    private let store: any Store
    private let clients: ClientCache
    private let salt = Mutex<[UInt8]?>(nil)

    /// Subjects for the clients in `clients`, with the salt kept in `store`.
    init(store: any Store, clients: ClientCache) {
        self.store = store
        self.clients = clients
    }

    /// The `sub` `client` gets for `userID`: the account id for public subjects.
    func subject(for userID: String, client: Client) throws -> String {
        guard client.subjectType == .pairwise else { return userID }
        return Self.subject(for: userID, client: client, salt: try currentSalt())
    }

    /// The pairwise subject of `userID` at `client` under `salt`.
    private static func subject(for userID: String, client: Client, salt: [UInt8]) -> String {
        let sector = client.sectorIdentifier ?? client.id
        return Base64URL.encode(HMAC.authenticationCode(for: Array((sector + "\u{0}" + userID).utf8), key: salt))
    }

    /// The subject for `userID` as `client` sees it, remembered so that ``userID(subject:clientID:in:)``
    /// finds the person again; the account id, unrecorded, for public subjects.
    func recordedSubject(for userID: String, client: Client) throws -> String {
        let subject = try subject(for: userID, client: client)
        guard subject != userID else { return subject }
        let sector = client.sectorIdentifier ?? client.id
        let known = try store.read { try $0.userID(pairwiseSubject: subject, sector: sector) }
        if known == nil {
            try store.transaction { try $0.recordPairwiseSubject(subject, sector: sector, userID: userID) }
        }
        return subject
    }

    /// The subject for `userID` as `client` sees it, recorded in `transaction` (an issuance's,
    /// so that a refused request records nothing); the account id for public subjects.
    func recordedSubject(for userID: String, client: Client, in transaction: any StoreTransaction) throws -> String {
        guard client.subjectType == .pairwise else { return userID }
        let subject = Self.subject(for: userID, client: client, salt: try currentSalt(in: transaction))
        let sector = client.sectorIdentifier ?? client.id
        if try transaction.userID(pairwiseSubject: subject, sector: sector) == nil {
            try transaction.recordPairwiseSubject(subject, sector: sector, userID: userID)
        }
        return subject
    }

    /// The pairwise sector of the client `clientID` (from the client cache, so read it before
    /// opening a transaction); nil for a client with public subjects or one that is gone.
    func pairwiseSector(ofClientID clientID: String) throws -> String? {
        guard let client = try clients.client(id: clientID), client.subjectType == .pairwise else { return nil }
        return client.sectorIdentifier ?? client.id
    }

    /// Whether the client `clientID` is in the client cache with public subjects, without
    /// reading the store (false also when it would take a read to tell).
    func hasPublicSubjectsInMemory(clientID: String) -> Bool {
        clients.clientInMemory(id: clientID)?.subjectType == .public
    }

    /// The account id behind `subject`, a `sub` of a client whose ``pairwiseSector(ofClientID:)``
    /// is `sector`: the subject itself without a sector, nil when a pairwise subject is unknown.
    static func userID(subject: String, sector: String?, in transaction: any StoreTransaction) throws -> String? {
        guard let sector else { return subject }
        return try transaction.userID(pairwiseSubject: subject, sector: sector)
    }

    /// The salt, read (or made) once.
    private func currentSalt() throws -> [UInt8] {
        if let known = salt.withLock({ $0 }) { return known }
        return try store.transaction { try currentSalt(in: $0) }
    }

    /// The salt, read (or made) in `transaction` when it is not known yet (a transaction of the
    /// store's own inside a grant's would wait on the grant's writer). A salt made here is not
    /// remembered until a later read finds it committed: the grant may still roll it back.
    private func currentSalt(in transaction: any StoreTransaction) throws -> [UInt8] {
        if let known = salt.withLock({ $0 }) { return known }
        let candidate = SecureRandom.bytes(count: 32)
        let stored = try transaction.providerSecret(name: Self.saltName, candidate: candidate)
        if stored != candidate { salt.withLock { $0 = stored } }
        return stored
    }
}
