import Foundation
import PorticoTesting
import Synchronization

@testable import PorticoKit

/// A person at a browser, reduced to HTTP: follows the authorization URL, posts the real login
/// and consent forms (a ``TestBrowser`` does the steps), and finally requests the redirect (the
/// app's loopback listener) like a browser would.
final class SignInRobot: Sendable {
    let email: String
    let password: String
    let decision: String
    /// The callback URL the robot delivered, once it has.
    let delivered = Mutex<URL?>(nil)
    /// The browser, made for the provider of the first URL the robot opens; its cookies last
    /// from the sign-in to later visits.
    private let browsers = Mutex<TestBrowser?>(nil)

    init(email: String, password: String, decision: String = "allow") {
        self.email = email
        self.password = password
        self.decision = decision
    }

    /// An opener that runs the robot on its own task, returning at once as a browser launcher does.
    var opener: BrowserOpener {
        BrowserOpener { url in Task { try? await self.signIn(at: url) } }
    }

    /// The whole walk: authorize → login → consent → callback.
    func signIn(at authorizationURL: URL) async throws {
        let browser = self.browser(for: authorizationURL)
        func target(of reply: TestReply, from url: URL) -> URL? {
            reply.location.flatMap { URL(string: $0, relativeTo: url)?.absoluteURL }
        }
        var location = target(of: try await browser.get(authorizationURL.absoluteString), from: authorizationURL)
        for _ in 0..<10 {
            guard let next = location else { return }
            if next.path == "/login" {
                let reply = try await browser.signIn(at: next.absoluteString, email: email, password: password)
                location = target(of: reply, from: next)
            } else if next.path == "/consent" {
                location = target(of: try await browser.decide(at: next.absoluteString, decision), from: next)
            } else if next.path == "/device" && next.query?.contains("request=") == true {
                // Device login's consent step at /device?request=….
                let page = try await browser.get(next.absoluteString)
                location = target(of: try await browser.decideDevice(on: page, decision), from: next)
            } else if next.host == "127.0.0.1", next.port != authorizationURL.port {
                delivered.withLock { $0 = next }
                _ = try await browser.get(next.absoluteString)
                return
            } else {
                location = target(of: try await browser.get(next.absoluteString), from: next)
            }
        }
    }

    /// The page at `url` as this browser sees it (its cookies sent, redirects not followed).
    func visit(_ url: URL) async throws -> String {
        try await browser(for: url).get(url.absoluteString).text
    }

    /// The robot's browser, made on first use for the provider `url` is on.
    private func browser(for url: URL) -> TestBrowser {
        browsers.withLock { browser in
            if let browser { return browser }
            var provider = URLComponents()
            provider.scheme = url.scheme
            provider.host = url.host
            provider.port = url.port
            let made = TestBrowser(base: provider.string ?? "")
            browser = made
            return made
        }
    }
}
