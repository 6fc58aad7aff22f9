import Foundation

/// The store's precision for time: whole Unix seconds, rounded down, on every backend.
///
/// The provider compares times the way the store keeps them (an expiry, a poll interval), so
/// that a record read back and a decision made before it was written agree.
public enum StoredTime {
    /// Whole seconds since 1970, rounded down and clamped so that absurd dates cannot trap.
    public static func seconds(_ date: Date) -> Int64 {
        let value = date.timeIntervalSince1970.rounded(.down)
        guard value.isFinite else { return 0 }
        if value >= 9.0e15 { return 9_000_000_000_000_000 }
        if value <= -9.0e15 { return -9_000_000_000_000_000 }
        return Int64(value)
    }

    /// `date` as the store keeps it.
    public static func stored(_ date: Date) -> Date {
        Date(timeIntervalSince1970: TimeInterval(seconds(date)))
    }

    /// Whether `now` is at or past `expiresAt`, both in whole seconds.
    public static func isExpired(_ expiresAt: Date, now: Date) -> Bool {
        seconds(now) >= seconds(expiresAt)
    }
}
