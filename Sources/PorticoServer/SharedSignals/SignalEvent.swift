import Foundation
import PorticoCrypto
import PorticoStore
import Synchronization

/// One event owed to one stream: everything its SET says but the `sub` (worked out when it is
/// signed, so a pairwise subject needs only the account id) and the signature. Its `jti` and
/// `iat` are fixed when it is announced, so every attempt at it carries the same ones and a
/// receiver can tell a retry from a new event (RFC 8935 §2.1).
struct SignalEvent: Sendable, Hashable {
    /// `jti`: time-ordered, so the poll queue and the outbox keep events in the order they
    /// happened.
    let jti: String
    /// The receiving client (`aud`).
    let clientID: String
    /// The account the event is about; nil for a stream event (verification).
    let userID: String?
    /// The event type.
    let event: SharedSignals.Event
    /// The event's members.
    let fields: [String: JSONValue]
    /// `txn`: one per action, shared by the events it caused.
    let transaction: String
    /// `iat`.
    let issuedAt: Date

    /// The outbox or poll-queue payload.
    var payload: String {
        var object: [String: JSONValue] = [
            "jti": .string(jti), "client_id": .string(clientID), "event": .string(event.rawValue),
            "fields": .object(fields), "txn": .string(transaction),
            "iat": .integer(Int64(issuedAt.timeIntervalSince1970.rounded(.down))),
        ]
        if let userID { object["user_id"] = .string(userID) }
        return JSONValue.object(object).jsonString
    }

    init(
        jti: String = SignalEvent.makeID(), clientID: String, userID: String?, event: SharedSignals.Event,
        fields: [String: JSONValue], transaction: String, issuedAt: Date
    ) {
        self.jti = jti
        self.clientID = clientID
        self.userID = userID
        self.event = event
        self.fields = fields
        self.transaction = transaction
        self.issuedAt = issuedAt
    }

    /// Events made by this process so far: the middle of their ids.
    private static let made = Atomic<UInt64>(0)
    private static let orderedAlphabet = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")

    /// A new `jti` that sorts after every earlier one of this process (and, to the millisecond,
    /// of other nodes): ``RecordIdentifier/timeOrdered(now:)``'s time stamp, a counter, then
    /// random characters, so that the events of one action (made in the same millisecond)
    /// keep the order they were announced in.
    static func makeID(now: Date = Date()) -> String {
        let count = made.add(1, ordering: .relaxed).newValue
        var id = String(RecordIdentifier.timeOrdered(now: now).prefix(8))
        for shift in stride(from: 30, through: 0, by: -6) {
            id.append(orderedAlphabet[Int(count >> UInt64(shift) & 63)])
        }
        id += SecureRandom.token(bits: 72).prefix(12)
        return id
    }

    /// Reads a payload back; nil for one this build did not write.
    init?(payload: String) {
        guard let object = JSONValue(parsing: Array(payload.utf8))?.objectValue,
            let jti = object["jti"]?.stringValue, let clientID = object["client_id"]?.stringValue,
            let event = object["event"]?.stringValue.flatMap(SharedSignals.Event.init(rawValue:)),
            let fields = object["fields"]?.objectValue, let transaction = object["txn"]?.stringValue,
            let issuedAt = object["iat"]?.integerValue
        else { return nil }
        self.init(
            jti: jti, clientID: clientID, userID: object["user_id"]?.stringValue, event: event, fields: fields,
            transaction: transaction, issuedAt: Date(timeIntervalSince1970: TimeInterval(issuedAt)))
    }
}
