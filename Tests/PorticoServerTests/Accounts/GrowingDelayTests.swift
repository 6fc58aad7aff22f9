import Foundation
import PorticoServer
import PorticoTesting
import Testing

/// Past 5 failures an account is not locked for a window but spaced: 1, 2, 4, 8 minutes after
/// the latest failure, at most 15. Whoever knows the address cannot keep the owner out longer
/// than the current delay, and guessing stays slow.
@Suite struct GrowingDelayTests {
    @Test func delaysDoubleUpToFifteenMinutesAndTheOwnerGetsInWhenOneHasPassed() async throws {
        let clock = TestClock()
        try await ProviderHarness.with(clock: clock) { provider in
            try provider.addUser()
            let browser = TestBrowser(base: provider.base)
            for _ in 1...5 { _ = try await browser.signIn(at: "/login", password: "wrong horse") }
            var expected: [(wait: TimeInterval, words: String)] = [
                (60, "1 minute."), (120, "2 minutes."), (240, "4 minutes."), (480, "8 minutes."),
                (900, "15 minutes."), (900, "15 minutes."),
            ]
            while !expected.isEmpty {
                let (wait, words) = expected.removeFirst()
                let refused = try await browser.signIn(at: "/login", password: "wrong horse")
                #expect(refused.status == 429)
                #expect(refused.text.contains("Too many attempts. Try again in \(words)"), "\(words)")
                clock.advance(by: wait - 5)
                #expect(try await browser.signIn(at: "/login").status == 429, "still waiting \(words)")
                clock.advance(by: 6)
                if expected.isEmpty { break }
                // The guesser's next try is counted and makes the next delay longer.
                #expect(try await browser.signIn(at: "/login", password: "wrong horse").status == 200)
            }
            // The delay has passed: the owner's right password gets in at once.
            #expect(try await browser.signIn(at: "/login").status == 303)
        }
    }
}
