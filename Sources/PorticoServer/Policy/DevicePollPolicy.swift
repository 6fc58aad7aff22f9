import Foundation
import PorticoStore

/// RFC 8628's rules for device authorizations, on the store's conditional updates: a type that
/// asks only for ``DeviceAuthorizationStorage``, the same on every backend.
public struct DevicePollPolicy: Sendable {
    /// How many seconds `slow_down` adds to the interval (RFC 8628 §3.5: 5).
    public let slowDownStep: Int

    /// A policy that raises the interval by `slowDownStep` seconds on each `slow_down`.
    public init(slowDownStep: Int = 5) {
        self.slowDownStep = slowDownStep
    }

    /// Stores a pending authorization; an expired one holding the same user code gives way
    /// first (a user code only has to be unique among live authorizations, and the purger may
    /// not have reached it yet). Throws ``StoreError/duplicate(field:)`` with `user_code` when a
    /// live one has it.
    public func start(_ authorization: DeviceAuthorization, in storage: some DeviceAuthorizationStorage) throws {
        try storage.deleteDeviceAuthorization(userCode: authorization.userCode, expiredBy: authorization.createdAt)
        try storage.insert(authorization)
    }

    /// Answers a device's poll (RFC 8628 §3.5): too soon raises the interval by
    /// ``slowDownStep`` (`slow_down`), an approval is consumed by the one poll whose conditional
    /// update changed its row (so two polls racing on separate connections cannot both get
    /// tokens).
    public func poll(deviceCode: String, in storage: some DeviceAuthorizationStorage, now: Date) throws -> DevicePoll {
        guard let stored = try storage.deviceAuthorization(deviceCode: deviceCode) else { return .notFound }
        if StoredTime.isExpired(stored.expiresAt, now: now) { return .expired }
        switch stored.status {
        case .consumed:
            // Tokens were issued for it already.
            return .expired
        case .denied:
            return .denied
        case .approved:
            // Another poll consumed it between the read and here: tokens were issued to it.
            guard try storage.consumeDeviceAuthorization(deviceCode: deviceCode, now: now) else { return .expired }
            var consumed = stored
            consumed.status = .consumed
            consumed.lastPolledAt = StoredTime.stored(now)
            return .approved(consumed)
        case .pending:
            let tooSoon = stored.lastPolledAt.map {
                StoredTime.seconds(now) - StoredTime.seconds($0) < Int64(stored.interval)
            }
            let slowDown = tooSoon ?? false
            let interval = slowDown ? stored.interval + slowDownStep : stored.interval
            guard
                try storage.recordDevicePoll(
                    deviceCode: deviceCode, now: now, interval: interval, ifLastPolledAt: stored.lastPolledAt)
            else {
                // Another poll of the same code was recorded since the read: this one is too soon.
                return .slowDown(interval: stored.interval + slowDownStep)
            }
            return slowDown ? .slowDown(interval: interval) : .pending
        }
    }
}
