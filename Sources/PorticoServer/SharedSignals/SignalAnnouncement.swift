import Foundation
import PorticoCrypto
import PorticoStore

/// The one place that decides *which* apps hear of a change to a person's account: every app
/// the person allowed (a consent) that has a stream not disabled, and in whose stream the
/// person still is, gets each event its stream asked for, all with one `txn`.
///
/// Called inside the transaction of the change (the hooks in the account pages, the CLI and
/// ``GrantRevocation``), so an event exists if and only if its change commits. Pushed events
/// become outbox messages (``SignalPushDeliverer``); polled ones wait in the poll queue.
enum SignalAnnouncement {
    /// One event of an action, before it is addressed to a stream.
    struct Content: Sendable {
        /// The event type.
        let event: SharedSignals.Event
        /// Members every receiver gets.
        var fields: [String: JSONValue] = [:]
        /// Members that reveal personal data, with the scope that reveals each: an app gets
        /// those its consent covers, and no event when it covers none of them.
        var scoped: [String: (scope: String, value: JSONValue)]? = nil
        /// The member the scoped ones go under (`claims` of `token-claims-change`); nil: beside
        /// the others.
        var scopedUnder: String? = nil

        /// The members for an app whose consent has `scopes`; nil when it is to get nothing.
        func fields(forScopes scopes: Set<String>) -> [String: JSONValue]? {
            guard let scoped else { return fields }
            var shown: [String: JSONValue] = [:]
            for (name, member) in scoped where scopes.contains(member.scope) { shown[name] = member.value }
            guard !shown.isEmpty else { return nil }
            var fields = fields
            if let scopedUnder {
                fields[scopedUnder] = .object(shown)
            } else {
                fields.merge(shown) { first, _ in first }
            }
            return fields
        }
    }

    /// Announces `contents` about `userID` to the streams of `clientIDs` (nil: every app the
    /// person allowed), in `transaction`; returns how many events it queued.
    @discardableResult
    static func announce(
        _ contents: [Content], userID: String, clientIDs: [String]? = nil, now: Date,
        in transaction: any StoreTransaction
    ) throws -> Int {
        let consents = try transaction.consents(userID: userID)
        var scopes: [String: Set<String>] = [:]
        for consent in consents { scopes[consent.clientID, default: []].formUnion(consent.scopes) }
        let targets = clientIDs ?? consents.map(\.clientID).sorted()
        let action = RecordIdentifier.random()
        var queued = 0
        var seen: Set<String> = []
        for clientID in targets where seen.insert(clientID).inserted {
            guard let stream = try transaction.signalStream(clientID: clientID), stream.status != "disabled",
                try !transaction.isSignalSubjectExcluded(clientID: clientID, userID: userID)
            else { continue }
            for content in contents where SharedSignals.delivers(content.event, on: stream) {
                guard var fields = content.fields(forScopes: scopes[clientID] ?? []) else { continue }
                if content.event.isCAEP { fields["event_timestamp"] = .integer(Int64(now.timeIntervalSince1970)) }
                let event = SignalEvent(
                    clientID: clientID, userID: userID, event: content.event, fields: fields, transaction: action,
                    issuedAt: now)
                try queue(event, on: stream, now: now, in: transaction)
                queued += 1
            }
        }
        return queued
    }

    /// Queues `event` for `stream`: an outbox message for push, a poll-queue row for poll.
    static func queue(_ event: SignalEvent, on stream: SignalStream, now: Date, in transaction: any StoreTransaction)
        throws
    {
        if stream.deliveryMethod == SharedSignals.pushMethod {
            try transaction.enqueue(
                OutboxMessage(id: event.jti, topic: SharedSignals.topic, payload: event.payload, createdAt: now))
        } else {
            try transaction.enqueuePolledSignal(
                PolledSignal(clientID: stream.clientID, jti: event.jti, payload: event.payload, createdAt: now))
        }
    }
}

/// The events of each action.
extension SignalAnnouncement.Content {
    /// CAEP `session-revoked`: the person's sessions with the apps ended (signed out
    /// everywhere, the app removed, the account link unbound).
    static func sessionRevoked(reason: String) -> Self {
        Self(event: .sessionRevoked, fields: ["reason_admin": ["en": .string(reason)]])
    }

    /// CAEP `credential-change` (`credential_type`: `password`, `app`, `fido2-platform`, …;
    /// `change_type`: `create`, `revoke`, `update`, `delete`).
    static func credentialChange(credentialType: String, changeType: String) -> Self {
        Self(
            event: .credentialChange,
            fields: ["credential_type": .string(credentialType), "change_type": .string(changeType)])
    }

    /// CAEP `token-claims-change` for a new name and/or e-mail address.
    static func claimsChange(name: String?, email: String?) -> Self {
        var claims: [String: (scope: String, value: JSONValue)] = [:]
        if let name { claims["name"] = ("profile", .string(name)) }
        if let email { claims["email"] = ("email", .string(email)) }
        return Self(event: .tokenClaimsChange, scoped: claims, scopedUnder: "claims")
    }

    /// RISC `identifier-changed` (the e-mail address), with the new value for apps allowed to
    /// see it.
    static func identifierChanged(email: String) -> Self {
        Self(event: .identifierChanged, scoped: ["new-value": ("email", .string(email))])
    }

    /// RISC `account-disabled`, with `reason` (`hijacking`, `bulk-account`) when one is given.
    static func accountDisabled(reason: String?) -> Self {
        Self(event: .accountDisabled, fields: reason.map { ["reason": .string($0)] } ?? [:])
    }

    /// RISC `account-enabled`.
    static func accountEnabled() -> Self { Self(event: .accountEnabled) }

    /// RISC `account-purged`: the account is closed for good. The hook for an account-closure
    /// path (removal by the CLI now; a person closing their own account later): call
    /// ``SignalAnnouncement/announce(_:userID:clientIDs:now:in:)`` with it *before* the account's consents go.
    static func accountPurged() -> Self { Self(event: .accountPurged) }
}
