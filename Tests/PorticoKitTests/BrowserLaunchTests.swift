import Foundation
import PorticoServer
import PorticoStore
import Testing

@testable import PorticoKit

/// A browser that cannot be started fails the sign-in at once, naming the command, or hands
/// over to the next way of signing in.
@Suite(.serialized)
struct BrowserLaunchTests {
    @Test(.timeLimit(.minutes(1)))
    func aBrowserCommandThatFailsEndsTheLoopbackWaitAtOnce() async throws {
        try await KitHarness.with { harness in
            let client = try harness.addPublicClient()
            // Far longer than the test's limit: only the failed command can end the wait in time.
            let agent = SystemBrowserUserAgent(
                timeout: .seconds(300), opener: .system(environment: ["BROWSER": "/bin/false", "PATH": "/bin"]))
            let manager = try await harness.manager(for: client, userAgent: agent)
            let error = await #expect(throws: AuthorizationError.self) {
                try await manager.authorize(AuthorizeRequest(scopes: [.profile]))
            }
            #expect(error?.code == .invalidInput)
            #expect(error?.message == "the browser command /bin/false failed (exit status 1)")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func anUnstartableBrowserFallsToDeviceLoginUnderTheAutomaticAgent() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try harness.addPublicClient(
                grants: ["authorization_code"] + DeviceFlowEndToEndTests.deviceGrants)
            let robot = SignInRobot(email: person.email, password: harness.password)
            let automatic = AutomaticUserAgent(
                onDevicePrompt: { prompt in
                    let target = prompt.verificationURLComplete ?? prompt.verificationURL
                    Task { try? await robot.signIn(at: target) }
                },
                browserOpener: .system(environment: ["BROWSER": "/bin/false", "PATH": "/bin"]))
            let manager = try await harness.manager(for: client, userAgent: automatic)
            let result = try await manager.authorize(AuthorizeRequest(scopes: [.profile]))
            #expect(result.user?.userID == person.id)
        }
    }

    @Test func aMissingBrowserIsNotAvailable() {
        #if os(Linux)
            let opener = BrowserOpener.system(environment: ["PATH": "/nonexistent"])
            #expect(!opener.isAvailable())
        #endif
    }
}
