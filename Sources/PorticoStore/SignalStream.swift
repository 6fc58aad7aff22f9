import Foundation

/// A Shared Signals stream (OpenID Shared Signals Framework 1.0 §8): the one channel through
/// which the provider tells one app (its receiver) what happens to the accounts of people who
/// allowed it.
///
/// One per client: the stream's `aud` is the client id, so the client id is also its key. The
/// store keeps what the receiver configured and the status the receiver (or the provider) set;
/// which events a change causes and how they are signed is the provider's business.
public struct SignalStream: Sendable, Hashable {
    /// The receiving app's client id (the SETs' `aud`).
    public var clientID: String
    /// `stream_id`, random, given to the receiver.
    public var id: String
    /// `delivery.method`: `urn:ietf:rfc:8935` (push) or `urn:ietf:rfc:8936` (poll).
    public var deliveryMethod: String
    /// `delivery.endpoint_url` for push; nil for poll (the provider's own URL).
    public var endpointURL: String?
    /// `delivery.authorization_header` the receiver asked pushes to carry, if any.
    public var authorizationHeader: String?
    /// `events_requested`, as the receiver sent them.
    public var eventsRequested: [String]
    /// `description`, free text of the receiver's.
    public var description: String?
    /// `enabled`, `paused` or `disabled`.
    public var status: String
    /// Why the status was last set, as given.
    public var statusReason: String?
    /// When it was created.
    public var createdAt: Date
    /// When it was last changed.
    public var updatedAt: Date

    /// A stream as created, or as stored (backends).
    public init(
        clientID: String, id: String = RecordIdentifier.random(), deliveryMethod: String, endpointURL: String?,
        authorizationHeader: String? = nil, eventsRequested: [String], description: String? = nil,
        status: String = "enabled", statusReason: String? = nil, createdAt: Date, updatedAt: Date? = nil
    ) {
        self.clientID = clientID
        self.id = id
        self.deliveryMethod = deliveryMethod
        self.endpointURL = endpointURL
        self.authorizationHeader = authorizationHeader
        self.eventsRequested = eventsRequested
        self.description = description
        self.status = status
        self.statusReason = statusReason
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
    }
}
