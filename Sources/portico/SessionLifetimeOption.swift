import Foundation
import PorticoServer

/// `serve --session-lifetime` and `--remembered-session-lifetime`: how long browser sessions
/// last, for deployments whose policy differs from the defaults (ASVS V3.3: idle and absolute
/// timeouts set by risk).
///
/// A duration is a whole number with a unit: `30m`, `12h`, `30d` (or bare seconds). The
/// sliding lifetime is what the option sets; the absolute cap (24 hours, 90 days) moves up with
/// it when the new lifetime is longer, and down to it when shorter, so "at most N" holds.
enum SessionLifetimeOption {
    /// The bounds an operator may choose within: below five minutes nobody could finish a sign-in
    /// and consent; above a year a stolen cookie is as good as a password.
    static let sessionRange: ClosedRange<TimeInterval> = 5 * 60...7 * 24 * 3600
    static let rememberedRange: ClosedRange<TimeInterval> = 3600...365 * 24 * 3600

    /// Reads both options into `lifetimes`.
    static func apply(_ arguments: inout Arguments, to lifetimes: inout TokenLifetimes) throws {
        if let text = try arguments.value("session-lifetime") {
            let seconds = try duration(text, option: "session-lifetime", range: sessionRange)
            lifetimes.session = seconds
            lifetimes.sessionMaximum = max(seconds, min(lifetimes.sessionMaximum, 2 * seconds))
        }
        if let text = try arguments.value("remembered-session-lifetime") {
            let seconds = try duration(text, option: "remembered-session-lifetime", range: rememberedRange)
            lifetimes.persistentSession = seconds
            lifetimes.persistentSessionMaximum = max(seconds, min(lifetimes.persistentSessionMaximum, 3 * seconds))
        }
    }

    /// `text` as seconds, or a usage error naming the option and the accepted form.
    static func duration(_ text: String, option: String, range: ClosedRange<TimeInterval>) throws -> TimeInterval {
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var digits = Substring(text)
        var unit: TimeInterval = 1
        if let last = digits.last, let factor = units[last] {
            unit = factor
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = Int(digits), number > 0 else {
            throw CommandLineError.usage("\(option) must be a duration such as 30m, 12h or 30d, not '\(text)'")
        }
        let seconds = TimeInterval(number) * unit
        guard range.contains(seconds) else {
            throw CommandLineError.usage(
                "\(option) must be from \(describe(range.lowerBound)) to \(describe(range.upperBound)), not '\(text)'")
        }
        return seconds
    }

    private static func describe(_ seconds: TimeInterval) -> String {
        if seconds >= 86400, seconds.truncatingRemainder(dividingBy: 86400) == 0 { return "\(Int(seconds / 86400))d" }
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600))h" }
        return "\(Int(seconds / 60))m"
    }
}
