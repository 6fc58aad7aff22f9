import Foundation
import PorticoCrypto
import PorticoStore

/// OpenID Connect Back-Channel Logout 1.0: telling a client's backend that a person's sign-in
/// with it has ended, with a signed `logout_token` POSTed to the client's
/// `--backchannel-logout-uri`.
///
/// This is the one place that decides *that* a client is told. Every event that ends a
/// person's sign-in at a client calls ``enqueue(userID:clientIDs:sessionID:now:in:)`` (or one
/// of the helpers below) inside the transaction that makes the change, which enqueues an
/// ``OutboxMessage`` per client registered with a back-channel logout URI, so the change and
/// the duty to tell commit together; ``BackChannelLogoutDeliverer`` signs and delivers the
/// tokens later, retrying, from any node. Clients without a URI get nothing.
///
/// Events: the person's sign-out of a browser session (every client whose refresh family came
/// from it, with that session's `sid`), Remove in Your Account and anything else that revokes a
/// person's grant to a client (``GrantRevocation``: a replayed code, a reused refresh token, a
/// password reset, an unbind), a disabled or removed account (every client of the person).
enum BackChannelLogout {
    /// The outbox topic of logout messages.
    static let topic = "backchannel_logout"
    /// The event of a logout token (§2.4).
    static let event = "http://schemas.openid.net/event/backchannel-logout"
    /// The JWS `typ` of a logout token (§2.4, RFC 8725 explicit typing).
    static let tokenType = "logout+jwt"

    /// What a message says: the client to tell, whose sign-in ended and, when one session
    /// ended rather than all of them, its `sid`. The `sub` is worked out at delivery (a
    /// pairwise subject needs only the account id, so it still works for a removed account).
    struct Message: Sendable, Hashable {
        /// The client to tell.
        let clientID: String
        /// The account id.
        let userID: String
        /// The `sid` of the ended session; nil for every session of the person.
        let sessionID: String?

        /// The outbox payload.
        var payload: String {
            var object: [String: JSONValue] = ["client_id": .string(clientID), "user_id": .string(userID)]
            if let sessionID { object["sid"] = .string(sessionID) }
            return JSONValue.object(object).jsonString
        }

        init(clientID: String, userID: String, sessionID: String?) {
            self.clientID = clientID
            self.userID = userID
            self.sessionID = sessionID
        }

        /// Reads a payload back; nil for one this build did not write.
        init?(payload: String) {
            guard let object = JSONValue(parsing: Array(payload.utf8))?.objectValue,
                let clientID = object["client_id"]?.stringValue, let userID = object["user_id"]?.stringValue
            else { return nil }
            self.init(clientID: clientID, userID: userID, sessionID: object["sid"]?.stringValue)
        }
    }

    /// Tells each of `clientIDs` registered with a back-channel logout URI that `userID`'s
    /// sign-in with it has ended: in the session `sessionID` (`sid`), or in every session when
    /// nil. Enqueues in `transaction`, so the message exists if and only if the change that
    /// causes it commits; returns how many messages it enqueued.
    ///
    /// The entry point for every event that ends a person's sign-in at a client (an unbind
    /// among them); clients without a URI, unknown ones and duplicates are skipped, and so is a
    /// message that one still waiting for the same client, person and session already carries
    /// (``OutboxStorage/enqueueCoalescing(_:)``): repeated events cost the client one notice.
    @discardableResult
    static func enqueue(
        userID: String, clientIDs: some Sequence<String>, sessionID: String?, now: Date,
        in transaction: any StoreTransaction
    ) throws -> Int {
        var enqueued = 0
        var seen: Set<String> = []
        for clientID in clientIDs where seen.insert(clientID).inserted {
            guard let client = try transaction.client(id: clientID), client.backchannelLogoutURI != nil else {
                continue
            }
            let message = Message(clientID: client.id, userID: userID, sessionID: sessionID)
            // One waiting message per (client, person, session): a logout token is signed at
            // each attempt, so the one already waiting tells the client all a second would.
            if try transaction.enqueueCoalescing(OutboxMessage(topic: topic, payload: message.payload, createdAt: now))
            {
                enqueued += 1
            }
        }
        return enqueued
    }

    /// Tells every client the person has a grant with (a consent or a live refresh family)
    /// that all of their sessions ended: a disabled or removed account.
    @discardableResult
    static func enqueueForEveryClient(userID: String, now: Date, in transaction: any StoreTransaction) throws -> Int {
        var clients = Set(try transaction.consents(userID: userID).map(\.clientID))
        clients.formUnion(try transaction.refreshFamilies(userID: userID, includeRevoked: false).map(\.clientID))
        return try enqueue(userID: userID, clientIDs: clients.sorted(), sessionID: nil, now: now, in: transaction)
    }

    /// Tells every client whose refresh family came from the browser session `hashedID` that
    /// it ended (the person signed that browser out), with the `sid` its ID tokens carry.
    @discardableResult
    static func enqueueSessionEnd(
        browserSessionHashedID hashedID: String, now: Date, in transaction: any StoreTransaction
    )
        throws -> Int
    {
        var enqueued = 0
        var seen: Set<String> = []
        for family in try transaction.sessionFamilies(browserSessionHashedID: hashedID)
        where seen.insert(family.clientID + "\u{0}" + family.sessionID).inserted {
            enqueued += try enqueue(
                userID: family.userID, clientIDs: [family.clientID], sessionID: family.sessionID, now: now,
                in: transaction)
        }
        return enqueued
    }

    /// As ``enqueueSessionEnd(browserSessionHashedID:now:in:)`` for the browser whose session
    /// cookie is `token`.
    @discardableResult
    static func enqueueSessionEnd(browserSessionToken token: String, now: Date, in transaction: any StoreTransaction)
        throws -> Int
    {
        try enqueueSessionEnd(browserSessionHashedID: SecretHash.reference(token), now: now, in: transaction)
    }

    /// The `sid` that `client` sees for the browser session `hashedID`, derived from the stored
    /// hash (so any node computes it) by one more hash, so that neither the cookie nor the stored
    /// reference can be learnt from it.
    ///
    /// Clients with public subjects share one `sid` per browser session (they share `sub` too).
    /// A pairwise client's `sid` also hashes its sector (OpenID Connect Core §8.1), so that two
    /// apps of different sectors cannot join their users by a `sid` they both saw, as pairwise
    /// `sub`s keep them from doing by subject. No provider secret is needed, unlike for pairwise
    /// subjects: the stored session hash is itself a secret of 256 bits that never leaves the
    /// provider, where an account id is not. The `sid` a client saw is stored with its refresh
    /// family (``StoreTransaction/linkRefreshFamily(_:toBrowserSession:sessionID:)``), so refreshes
    /// and back-channel logout tokens repeat exactly that one.
    static func sessionID(browserSessionHashedID hashedID: String, client: Client) -> String {
        guard client.subjectType == .pairwise else {
            return Base64URL.encode(Digest.sha256.hash("portico-sid\u{0}" + hashedID).prefix(16))
        }
        let sector = client.sectorIdentifier ?? client.id
        return Base64URL.encode(
            Digest.sha256.hash("portico-pairwise-sid\u{0}" + sector + "\u{0}" + hashedID).prefix(16))
    }

    /// Whether `client` is told of sign-outs, and so gets `sid` in its ID tokens.
    static func isTold(_ client: Client) -> Bool {
        client.backchannelLogoutURI != nil
    }
}
