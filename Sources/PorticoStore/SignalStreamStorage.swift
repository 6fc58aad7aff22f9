import Foundation

/// Shared Signals streams (``SignalStream``), the people a receiver took out of its stream, and
/// the queue of events waiting to be polled (``PolledSignal``).
///
/// Part of ``StoreTransaction``; see its "Implementation requirements". A stream belongs to its
/// client and goes with it; its excluded subjects and queued events go with the stream.
public protocol SignalStreamStorage {
    /// Stores a new stream; ``StoreError/duplicate(field:)`` (`stream`) when the client has one.
    func insertSignalStream(_ stream: SignalStream) throws
    /// The stream of `clientID`, if any.
    func signalStream(clientID: String) throws -> SignalStream?
    /// Replaces the stored stream of `stream.clientID`; false when there is none.
    @discardableResult func updateSignalStream(_ stream: SignalStream) throws -> Bool
    /// Deletes the stream of `clientID` with its excluded subjects and queued events; false when
    /// there was none.
    @discardableResult func deleteSignalStream(clientID: String) throws -> Bool
    /// Takes the person `userID` out of the stream of `clientID` (the receiver removed the
    /// subject); false when they were out already.
    @discardableResult func excludeSignalSubject(clientID: String, userID: String, at time: Date) throws -> Bool
    /// Puts the person back in (the receiver added the subject); false when they were not out.
    @discardableResult func includeSignalSubject(clientID: String, userID: String) throws -> Bool
    /// Whether the person was taken out of the stream of `clientID`.
    func isSignalSubjectExcluded(clientID: String, userID: String) throws -> Bool
    /// Queues an event for polling.
    func enqueuePolledSignal(_ signal: PolledSignal) throws
    /// Up to `limit` queued events of `clientID`, oldest first.
    func polledSignals(clientID: String, limit: Int) throws -> [PolledSignal]
    /// How many events of `clientID` wait to be polled.
    func polledSignalCount(clientID: String) throws -> Int
    /// Removes the acknowledged events (`jtis`) of `clientID`; returns how many were queued.
    @discardableResult func acknowledgePolledSignals(clientID: String, jtis: [String]) throws -> Int
}
