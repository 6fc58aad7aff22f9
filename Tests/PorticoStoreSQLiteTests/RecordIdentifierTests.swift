import Foundation
import PorticoStore
import Testing

/// `RecordIdentifier.timeOrdered`: what the store's indexes rely on (byte order is time order)
/// and what operators rely on (the shape of every other id).
@Suite struct RecordIdentifierTests {
    private static let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    @Test func timeOrderedIDsLookLikeEveryOtherID() {
        for _ in 0..<2_000 {
            let id = RecordIdentifier.timeOrdered()
            #expect(id.count == 22)
            #expect(id.allSatisfy(Self.alphabet.contains))
            #expect(id.first != "-")
        }
        #expect(RecordIdentifier.timeOrdered() != RecordIdentifier.timeOrdered())
        // Clocks out of range give the nearest end instead of a crash.
        for absurd in [
            Date.distantPast, Date(timeIntervalSince1970: -1), .distantFuture, Date(timeIntervalSince1970: .infinity),
        ] {
            let id = RecordIdentifier.timeOrdered(now: absurd)
            #expect(id.count == 22 && id.first != "-")
        }
    }

    /// Byte order (SQLite's BINARY collation, PostgreSQL's C order on these characters) follows
    /// the time, a millisecond apart and across every character the time's digits step through.
    /// (Within one millisecond the random part decides; the times here sit mid-millisecond.)
    @Test func byteOrderIsTimeOrder() {
        let start = Date(timeIntervalSince1970: 1_764_547_200)  // 2025-12-01
        var times = (0..<2_000).map { start.addingTimeInterval((Double($0) + 0.5) / 1000) }
        // Steps of 2^6k milliseconds, so that each of the eight time characters changes.
        for shift in stride(from: 0, through: 42, by: 6) {
            times.append(start.addingTimeInterval((Double(UInt64(1) << UInt64(shift)) + 0.5) / 1000 + 3))
        }
        times.append(Date(timeIntervalSince1970: 4_102_444_800))  // 2100
        times.sort()
        let ids = times.map { RecordIdentifier.timeOrdered(now: $0) }
        for (earlier, later) in zip(ids, ids.dropFirst()) {
            #expect(Array(earlier.utf8).lexicographicallyPrecedes(Array(later.utf8)), "\(earlier) < \(later)")
        }
    }
}
