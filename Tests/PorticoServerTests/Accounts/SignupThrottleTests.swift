import Foundation
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Sign-ups are throttled per client address like sign-ins and per e-mail address (each one
/// mails it), and both throttles come before the password is hashed.
@Suite struct SignupThrottleTests {
    @Test func theTwentyFirstSignUpFromOneAddressIsRefusedBeforeAnyHash() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.metrics = true }) { provider in
            for index in 1...AttemptThrottle.signUpLimit {
                let reply = try await accountSignUp(
                    TestBrowser(base: provider.base),
                    [("name", "Person \(index)"), ("email", "p\(index)@example.com"), ("password", strongPassword)])
                #expect(reply.status == 200, "sign-up \(index)")
            }
            _ = try await provider.outboxMessages(atLeast: AttemptThrottle.signUpLimit)
            let refused = try await accountSignUp(
                TestBrowser(base: provider.base),
                [("name", "One Too Many"), ("email", "late@example.com"), ("password", strongPassword)])
            #expect(refused.status == 429)
            #expect(refused.text.contains("Too many attempts. Try again in"))
            #expect(refused.header("Retry-After") != nil)
            // Refused before the fields are looked at, too.
            let malformed = try await accountSignUp(
                TestBrowser(base: provider.base), [("name", ""), ("email", "x"), ("password", "short")])
            #expect(malformed.status == 429)

            let metrics = try await Self.samples(provider)
            #expect(metrics["portico_sign_up_password_hashes_total"] == Double(AttemptThrottle.signUpLimit))
            #expect(metrics[#"portico_sign_ups_total{result="throttled"}"#] == 2)
            #expect(metrics[#"portico_sign_ups_total{result="mailed"}"#] == Double(AttemptThrottle.signUpLimit))
            #expect(provider.outboxCount == AttemptThrottle.signUpLimit)
            #expect(try provider.store.read { try $0.pendingSignup(token: "late") } == nil)
        }
    }

    @Test func oneEmailAddressIsMailedAtMostFiveTimesAnHourWhetherOrNotItHasAnAccount() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.metrics = true }) { provider in
            try provider.addUser()
            for address in ["ann@example.com", "free@example.com"] {
                for index in 1...AttemptThrottle.signUpEmailLimit {
                    let reply = try await Self.signUp(provider, email: address)
                    #expect(reply.status == 200, "\(address) \(index)")
                }
                let refused = try await Self.signUp(provider, email: address.uppercased())
                #expect(refused.status == 429, "\(address)")
                #expect(refused.text.contains("Too many attempts. Try again in"))
            }
            // A refused password is no mail: it does not use up the address's allowance.
            for _ in 1...AttemptThrottle.signUpEmailLimit + 1 {
                let weak = try await Self.signUp(provider, email: "typo@example.com", password: "short")
                #expect(weak.status == 200)
                #expect(weak.text.contains(#"id="password-error""#))
            }
            #expect(try await Self.signUp(provider, email: "typo@example.com").status == 200)

            let mails = try await provider.outboxMessages(atLeast: 2 * AttemptThrottle.signUpEmailLimit + 1)
            #expect(mails.count == 2 * AttemptThrottle.signUpEmailLimit + 1)
            let metrics = try await Self.samples(provider)
            #expect(
                metrics["portico_sign_up_password_hashes_total"] == Double(2 * AttemptThrottle.signUpEmailLimit + 1))
            #expect(metrics[#"portico_sign_ups_total{result="existing"}"#] == Double(AttemptThrottle.signUpEmailLimit))
            #expect(
                metrics[#"portico_sign_ups_total{result="invalid"}"#] == Double(AttemptThrottle.signUpEmailLimit + 1))
        }
    }

    /// A sign-up for `email` in a fresh browser. All come from one client address, and stay
    /// under its limit (19 posts in all, of the 20 it allows).
    private static func signUp(_ provider: ProviderHarness, email: String, password: String = strongPassword)
        async throws -> TestReply
    {
        try await accountSignUp(
            TestBrowser(base: provider.base), [("name", "Flood Target"), ("email", email), ("password", password)])
    }

    private static func samples(_ provider: ProviderHarness) async throws -> [String: Double] {
        let reply = try await TestBrowser(base: provider.base).get("/metrics")
        var samples: [String: Double] = [:]
        for line in reply.text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { samples[String(parts[0])] = value }
        }
        return samples
    }
}
