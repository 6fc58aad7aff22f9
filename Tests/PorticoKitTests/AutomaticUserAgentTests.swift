import Foundation
import Testing

@testable import PorticoKit

/// The automatic choice: the companion first when it is available, then what fits the
/// redirect URI, device login last.
struct AutomaticUserAgentTests {
    struct Companion: UserAgent {
        let available: Bool
        func authorize(_ context: AuthorizationContext) async throws -> AuthorizationOutcome {
            .callback(
                URL(string: "http://127.0.0.1/callback?code=c")!, redirectURI: URL(string: "http://127.0.0.1/callback")!
            )
        }
        func isAvailable(for context: AuthorizationContext) -> Bool { available }
    }

    private func context(redirectURI: String?, device: Bool) -> AuthorizationContext {
        let provider = Provider(
            issuer: "https://id.example", authorizationEndpoint: URL(string: "https://id.example/authorize")!,
            tokenEndpoint: URL(string: "https://id.example/token")!,
            deviceAuthorizationEndpoint: device ? URL(string: "https://id.example/device")! : nil)
        let request = AuthorizeRequest(scopes: [.profile])
        return AuthorizationContext(
            provider: provider, clientID: "app", scopes: request.scopes, redirectURI: redirectURI.flatMap(URL.init),
            grantType: .accessToken, pending: PendingAuthorization(request: request), http: .shared,
            redirects: RedirectSlot())
    }

    @Test func anAvailableCompanionComesFirst() {
        let automatic = AutomaticUserAgent(companion: Companion(available: true))
        #expect(automatic.choose(for: context(redirectURI: "http://127.0.0.1/callback", device: true)) is Companion)
        let absent = AutomaticUserAgent(companion: Companion(available: false))
        #expect(!(absent.choose(for: context(redirectURI: nil, device: true)) is Companion))
    }

    @Test func theLoopbackBrowserNeedsALoopbackRedirect() {
        let browser = SystemBrowserUserAgent()
        #expect(!browser.isAvailable(for: context(redirectURI: "com.example.app:/callback", device: false)))
        #expect(
            CustomSchemeRedirect().isAvailable(for: context(redirectURI: "com.example.app:/callback", device: false)))
        #expect(!CustomSchemeRedirect().isAvailable(for: context(redirectURI: "http://127.0.0.1/cb", device: false)))
        #expect(SystemBrowserUserAgent.callbackPath(for: URL(string: "http://127.0.0.1/oauth/done")) == "/oauth/done")
        #expect(SystemBrowserUserAgent.callbackPath(for: URL(string: "com.example.app:/x")) == "/callback")
    }

    @Test func deviceLoginIsTheLastResort() {
        let automatic = AutomaticUserAgent()
        #if canImport(AuthenticationServices) && !os(watchOS)
            // Apple platforms show a custom-scheme sign-in in the in-app web session.
            #expect(
                automatic.choose(for: context(redirectURI: "com.example.app:/callback", device: false))
                    is WebAuthenticationSessionUserAgent)
        #else
            // A custom-scheme redirect rules out the loopback browser; device login remains.
            #expect(
                automatic.choose(for: context(redirectURI: "com.example.app:/callback", device: true))
                    is DeviceCodeUserAgent)
            #expect(automatic.choose(for: context(redirectURI: "com.example.app:/callback", device: false)) == nil)
        #endif
    }

    @Test func browserCommandsFollowTheConventions() {
        let url = URL(string: "http://127.0.0.1:1/x")!
        let placeholder = BrowserOpener.systemCommand(for: url, environment: ["BROWSER": "/bin/echo --new %s"])
        #expect(placeholder?.executable.path == "/bin/echo")
        #expect(placeholder?.arguments == ["--new", url.absoluteString])
        let appended = BrowserOpener.systemCommand(
            for: url, environment: ["BROWSER": "no-such-browser:/bin/echo", "PATH": "/nonexistent"])
        #expect(appended?.executable.path == "/bin/echo")
        #expect(appended?.arguments == [url.absoluteString])
        #expect(BrowserOpener.systemCommand(for: url, environment: ["PATH": "/nonexistent"]) == nil)
    }
}
