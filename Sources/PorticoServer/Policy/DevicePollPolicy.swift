import Foundation
import PorticoStore

/// RFC 8628's rules for device authorizations, on the store's conditional updates
/// (``DeviceAuthorizationStorage``), the same on every backend.
extension StoreTransaction {
    /// Stores a pending authorization; an expired one holding the same user code gives way
    /// first (a user code only has to be unique among live authorizations, and the purger may
    /// not have reached it yet). Throws ``StoreError/duplicate(field:)`` with `user_code` when a
    /// live one has it.
    public func startDeviceAuthorization(_ authorization: DeviceAuthorization) throws {
        try deleteDeviceAuthorization(userCode: authorization.userCode, expiredBy: authorization.createdAt)
        try insert(authorization)
    }

    /// Answers a device's poll (RFC 8628 §3.5): too soon raises the interval by 5 s
    /// (`slow_down`), an approval is consumed by the one poll whose conditional update changed
    /// its row (so two polls racing on separate connections cannot both get tokens).
    public func pollDeviceAuthorization(deviceCode: String, now: Date) throws -> DevicePoll {
        guard let stored = try deviceAuthorization(deviceCode: deviceCode) else { return .notFound }
        if stored.status == .consumed || StoredTime.isExpired(stored.expiresAt, now: now) { return .expired }
        switch stored.status {
        case .denied:
            return .denied
        case .approved:
            // Another poll consumed it between the read and here: tokens were issued to it.
            guard try consumeDeviceAuthorization(deviceCode: deviceCode, now: now) else { return .expired }
            var consumed = stored
            consumed.status = .consumed
            consumed.lastPolledAt = StoredTime.stored(now)
            return .approved(consumed)
        case .pending, .consumed:  // (.consumed returned .expired above; the switch must name it)
            let tooSoon = stored.lastPolledAt.map {
                StoredTime.seconds(now) - StoredTime.seconds($0) < Int64(stored.interval)
            }
            let slowDown = tooSoon ?? false
            let interval = slowDown ? stored.interval + 5 : stored.interval
            guard
                try recordDevicePoll(
                    deviceCode: deviceCode, now: now, interval: interval, ifLastPolledAt: stored.lastPolledAt)
            else {
                // Another poll of the same code was recorded since the read: this one is too soon.
                return .slowDown(interval: stored.interval + 5)
            }
            return slowDown ? .slowDown(interval: interval) : .pending
        }
    }
}
