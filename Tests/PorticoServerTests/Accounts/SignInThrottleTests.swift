import Foundation
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// Sign-in throttling: 5 failures per account (then growing delays) or 20 per address within
/// 15 minutes.
@Suite struct SignInThrottleTests {
    @Test func theSixthAttemptOnAnAccountIsRefusedEvenWithTheRightPassword() async throws {
        let clock = TestClock()
        try await ProviderHarness.with(clock: clock) { provider in
            try provider.addUser()
            let browser = TestBrowser(base: provider.base)
            for _ in 1...5 {
                let wrong = try await browser.signIn(at: "/login", password: "wrong horse")
                #expect(wrong.status == 200)
                #expect(wrong.text.contains("Your email or password is incorrect"))
            }
            let refused = try await browser.signIn(at: "/login")
            #expect(refused.status == 429)
            #expect(refused.text.contains("Too many attempts. Try again in 1 minute."))
            #expect(refused.header("Retry-After").flatMap(Int.init).map { (50...60).contains($0) } == true)
            #expect(browser.cookie("portico_session") == nil)
            // Another account from the same address is not affected.
            try provider.addUser(email: "bob@example.com", name: "Bob")
            #expect(try await browser.signIn(at: "/login", email: "bob@example.com").status == 303)

            clock.advance(by: 61)
            let later = try await browser.signIn(at: "/login")
            #expect(later.status == 303)
        }
    }

    @Test func unknownAddressesAreCountedAndAnsweredLikeKnownOnes() async throws {
        try await ProviderHarness.with { provider in
            let browser = TestBrowser(base: provider.base)
            for _ in 1...5 {
                let reply = try await browser.signIn(at: "/login", email: "nobody@example.com")
                #expect(reply.text.contains("Your email or password is incorrect"))
            }
            let refused = try await browser.signIn(at: "/login", email: "NOBODY@example.com")
            #expect(refused.status == 429)
            #expect(refused.text.contains("Too many attempts. Try again in 1 minute."))
        }
    }

    @Test func theTwentyFirstFailureFromOneAddressIsRefused() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let browser = TestBrowser(base: provider.base)
            for attempt in 1...20 {
                let reply = try await browser.signIn(
                    at: "/login", email: "guess\(attempt % 5)@example.com", password: "guess \(attempt)")
                #expect(reply.status == 200)
            }
            let refused = try await browser.signIn(at: "/login")
            #expect(refused.status == 429)
            #expect(refused.text.contains("Too many attempts."))
        }
    }

    @Test func aSuccessfulSignInClearsTheAccountsCount() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let browser = TestBrowser(base: provider.base)
            for _ in 1...4 { _ = try await browser.signIn(at: "/login", password: "wrong horse") }
            #expect(try await browser.signIn(at: "/login").status == 303)
            for _ in 1...5 {
                #expect(try await browser.signIn(at: "/login", password: "wrong horse").status == 200)
            }
            #expect(try await browser.signIn(at: "/login").status == 429)
        }
    }

    @Test func aPasswordResetClearsTheAccountsCount() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let browser = TestBrowser(base: provider.base)
            for _ in 1...5 { _ = try await browser.signIn(at: "/login", password: "wrong horse") }
            #expect(try await browser.signIn(at: "/login").status == 429)
            _ = try await accountForgot(browser, email: "ann@example.com")
            let link = try resetLink(in: try #require(try await provider.outboxMessages(atLeast: 1).first))
            #expect(try await accountReset(browser, link: link).status == 200)
            #expect(try await browser.signIn(at: "/login", password: strongPassword).status == 303)
        }
    }
}
