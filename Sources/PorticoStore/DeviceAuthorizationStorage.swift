import Foundation

/// RFC 8628 device authorizations.
///
/// The store keeps them and changes their state with conditional updates; what a poll answers
/// (`slow_down` and its +5 s, consuming an approval once, when a user code may be given out
/// again) is the provider's policy on top.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol DeviceAuthorizationStorage {
    /// Stores a pending device authorization; throws ``StoreError/duplicate(field:)`` with
    /// `user_code` when any stored one has the same user code (the provider first deletes an
    /// expired holder, ``deleteDeviceAuthorization(userCode:expiredBy:)``).
    func insert(_ authorization: DeviceAuthorization) throws
    /// Deletes the authorization holding `userCode` if it has expired by `now` (conditional);
    /// false when there is none or it is live.
    @discardableResult func deleteDeviceAuthorization(userCode: String, expiredBy now: Date) throws -> Bool
    /// The live authorization with this user code (typed by a person; normalized here).
    func deviceAuthorization(userCode: String, now: Date) throws -> DeviceAuthorization?
    /// The authorization whose plain device code is `deviceCode`, whatever its state.
    func deviceAuthorization(deviceCode: String) throws -> DeviceAuthorization?
    /// Approves a live, pending authorization for `userID` (conditional); false if there is none.
    @discardableResult func approveDeviceAuthorization(userCode: String, userID: String, authTime: Date, now: Date)
        throws -> Bool
    /// Denies a live, pending authorization (conditional); false if there is none.
    @discardableResult func denyDeviceAuthorization(userCode: String, now: Date) throws -> Bool
    /// Consumes an approved authorization, recording the poll at `now` (conditional on its
    /// being approved): true for exactly one of any number of concurrent polls, the one that
    /// may issue tokens.
    func consumeDeviceAuthorization(deviceCode: String, now: Date) throws -> Bool
    /// Records a poll at `now` and sets the interval to `interval` seconds, if the last poll
    /// recorded is still `lastPolledAt` (compare-and-swap; nil for "never polled"). False when
    /// another poll was recorded first: nothing changed.
    func recordDevicePoll(deviceCode: String, now: Date, interval: Int, ifLastPolledAt lastPolledAt: Date?) throws
        -> Bool
}
