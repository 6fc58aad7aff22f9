import Foundation

/// How many times people signed in to one app on one UTC day.
public struct DailySignIns: Sendable, Hashable {
    /// The UTC day, as whole days since 1970-01-01 (so that both engines store and compare it alike).
    public let day: Int
    /// Sign-ins that day.
    public let count: Int

    /// A day's count.
    public init(day: Int, count: Int) {
        self.day = day
        self.count = count
    }

    /// The UTC day `time` falls on, as whole days since 1970-01-01.
    public static func day(of time: Date) -> Int {
        Int((time.timeIntervalSince1970 / 86_400).rounded(.down))
    }
}

/// Sign-ins per app per day (migration 24), for the developer console's chart.
///
/// A counter rather than a log: the chart needs only the daily totals, and one row per app and
/// day costs one upsert per sign-in however many people sign in. Part of ``StoreTransaction``;
/// what counts as a sign-in is decided in `PorticoServer`.
public protocol SignInCountStorage {
    /// Adds one sign-in to `clientID` on the UTC day of `time`.
    func countSignIn(clientID: String, at time: Date) throws
    /// The sign-ins of `clientID` per UTC day from `firstDay` (``DailySignIns/day(of:)``) on,
    /// oldest first; days without any are left out.
    func signInsPerDay(clientID: String, from firstDay: Int) throws -> [DailySignIns]
}
