import Foundation
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// Sign-ups are throttled per address like sign-ins, and counted before the password is hashed.
@Suite struct SignupThrottleTests {
    @Test func theTwentyFirstSignUpFromOneAddressIsRefusedAndCreatesNothing() async throws {
        try await ProviderHarness.with { provider in
            for index in 1...20 {
                let reply = try await accountSignUp(
                    TestBrowser(base: provider.base),
                    [("name", "Person \(index)"), ("email", "p\(index)@example.com"), ("password", strongPassword)])
                #expect(reply.status == 200, "sign-up \(index)")
            }
            let refused = try await accountSignUp(
                TestBrowser(base: provider.base),
                [("name", "One Too Many"), ("email", "late@example.com"), ("password", strongPassword)])
            #expect(refused.status == 429)
            #expect(refused.text.contains("Too many attempts. Try again in"))
            #expect(refused.header("Retry-After") != nil)
            #expect(try provider.store.read { try $0.user(email: "late@example.com") } == nil)
        }
    }
}
