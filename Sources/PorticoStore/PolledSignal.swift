import Foundation

/// A Security Event waiting for its receiver to poll for it (RFC 8936): kept until the
/// receiver acknowledges its `jti`, or the stream is deleted.
public struct PolledSignal: Sendable, Hashable {
    /// The stream's client id.
    public var clientID: String
    /// The SET's `jti`; also its place in the queue (ids sort by the time they were made).
    public var jti: String
    /// What the provider needs to sign the SET (JSON text); opaque to the store.
    public var payload: String
    /// When it was queued.
    public var createdAt: Date

    /// A queued event.
    public init(clientID: String, jti: String, payload: String, createdAt: Date) {
        self.clientID = clientID
        self.jti = jti
        self.payload = payload
        self.createdAt = createdAt
    }
}
