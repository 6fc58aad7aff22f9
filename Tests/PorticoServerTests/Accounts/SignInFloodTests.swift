import Dispatch
import Foundation
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Admission for Argon2id (``PasswordCheckGate``): once every turn is taken, a sign-in is
/// answered 503 with `Retry-After` without being counted or checked, while the token endpoint
/// keeps answering.
@Suite struct SignInFloodTests {
    /// Holds every turn of `gate` on threads of its own until `release()`, as a flood of
    /// sign-ins hashing at once would.
    private final class TurnHolders: Sendable {
        private let entered = DispatchSemaphore(value: 0)
        private let released = DispatchSemaphore(value: 0)
        private let count: Int

        init(taking gate: PasswordCheckGate) {
            count = gate.limits.concurrent
            for _ in 0..<count {
                Thread { [entered, released] in
                    _ = gate.admit {
                        entered.signal()
                        released.wait()
                    }
                }.start()
            }
            for _ in 0..<count { entered.wait() }
        }

        func release() {
            for _ in 0..<count { released.signal() }
        }
    }

    @Test func aFullGateSheds503WithRetryAfterWhileClientCredentialsStillGet200() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let service = try harness.addConfidentialClient(grants: ["client_credentials"])
            let holders = TurnHolders(taking: harness.provider.context.passwordChecks)
            let browser = TestBrowser(base: harness.base)

            // More than the account's throttle allows (5): shed attempts are not counted.
            for _ in 0...AttemptThrottle.accountLimit {
                let shed = try await browser.signIn(at: "/login")
                #expect(shed.status == 503)
                #expect(shed.header("Retry-After") == String(ErrorPage.busyRetryAfterSeconds))
                #expect(shed.text.contains("Too many people are signing in at this moment"))
                #expect(browser.cookie("portico_session") == nil)
                let token = try await harness.token(
                    [("grant_type", "client_credentials")], client: ClientCredentials.of(service))
                #expect(token.status == 200)
                #expect(token.string("access_token") != nil)
            }

            holders.release()
            let signedIn = try await browser.signIn(at: "/login")
            #expect(signedIn.status == 303)
            #expect(browser.cookie("portico_session") != nil)
        }
    }

    @Test func aFullGateShedsSignUpsBeforeTheirHash() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.metrics = true }) { harness in
            let holders = TurnHolders(taking: harness.provider.context.passwordChecks)
            let fields = [("name", "Flood Person"), ("email", "flood@example.com"), ("password", strongPassword)]
            let shed = try await accountSignUp(TestBrowser(base: harness.base), fields)
            #expect(shed.status == 503)
            #expect(shed.header("Retry-After") == String(ErrorPage.busyRetryAfterSeconds))
            let metrics = try await TestBrowser(base: harness.base).get("/metrics").text
            #expect(metrics.contains(#"portico_sign_ups_total{result="shed"} 1"#))
            #expect(metrics.contains("portico_sign_up_password_hashes_total 0"))

            holders.release()
            let mailed = try await accountSignUp(TestBrowser(base: harness.base), fields)
            #expect(mailed.status == 200)
            #expect(mailed.text.contains(#"id="signup-sent""#))
        }
    }
}
