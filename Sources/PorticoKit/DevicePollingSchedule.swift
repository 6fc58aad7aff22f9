import Foundation

/// The polling rules of RFC 8628 §3.5, which LWA's code pair follows too: wait `interval`
/// between polls (5 s unless the provider says), keep waiting on `authorization_pending`,
/// wait 5 s longer after every `slow_down`, stop on anything else or when the code expires.
struct DevicePollingSchedule: Sendable, Equatable {
    /// What to do after a poll that did not yield tokens.
    enum Step: Sendable, Equatable {
        /// Poll again after this many seconds.
        case pollAgain(after: TimeInterval)
        /// Stop: the person declined, the code expired, or the provider failed.
        case stop
    }

    /// RFC 8628 §3.2: the default when the provider names no interval.
    static let defaultInterval: TimeInterval = 5
    /// RFC 8628 §3.5: what every `slow_down` adds.
    static let slowDownIncrement: TimeInterval = 5

    private(set) var interval: TimeInterval
    let expiresAt: Date

    init(interval: TimeInterval?, expiresAt: Date) {
        self.interval = max(1, interval ?? Self.defaultInterval)
        self.expiresAt = expiresAt
    }

    /// The step after the provider answered `error` at `now`.
    mutating func next(after error: String, now: Date) -> Step {
        switch error {
        case "authorization_pending":
            break
        case "slow_down":
            interval += Self.slowDownIncrement
        default:
            return .stop
        }
        return now.addingTimeInterval(interval) < expiresAt ? .pollAgain(after: interval) : .stop
    }
}
