import Foundation
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoHostBackend

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The example host backend as a Shared Signals receiver: subscribed with its `ssf.manage`
/// token, it verifies each pushed SET and, on `session-revoked`, `account-disabled` or
/// `account-purged` for a linked person, ends that person's host session and mini-program
/// state (the auth model's platform token), as the account-link seed asks on logout and unbind.
@Suite struct HostBackendSharedSignalsTests {
    static let secret = "host secret"

    @Test func aDisabledOrSignedOutPlatformAccountEndsTheLinkedHostSession() async throws {
        let configuration = ProviderConfiguration.testing {
            $0.allowsLoopbackCallbacks = true
            $0.backchannelLogout = BackChannelLogoutSettings(
                pollInterval: .milliseconds(50), requestTimeout: .seconds(2), firstRetryDelay: .milliseconds(200),
                maximumRetryDelay: .milliseconds(500))
        }
        try await ProviderHarness.with(configuration: configuration) { provider in
            var registration = ClientRegistration(
                name: "Host App", redirectURIs: ["https://host.example/cb"], scopes: ["openid", "profile"],
                grantTypes: ["authorization_code", "client_credentials"])
            registration.isSignalReceiver = true
            let registered = try registration.register(in: provider.store)
            let host = registered.client
            let platform = PlatformClient(
                issuer: try #require(URL(string: provider.base)), clientID: host.id,
                clientSecret: try #require(registered.secret))
            let directory = provider.directory.appendingPathComponent("host-backend")
            let backend = try HostBackend(platform: platform, dataDirectory: directory, port: 0)
            try backend.start()
            defer { backend.shutdown() }
            try await backend.subscribeToSecurityEvents()
            // Subscribing again (a restart) points the existing stream at the backend.
            try await backend.subscribeToSecurityEvents()

            let mei = try provider.addUser(email: "mei@example.com")
            let kai = try provider.addUser(email: "kai@example.com")
            let now = provider.clock.now
            try provider.store.transaction { transaction in
                for user in [mei, kai] {
                    try transaction.saveConsent(userID: user.id, clientID: host.id, scopes: ["openid"], now: now)
                }
            }
            let (meiHost, meiSession) = try backend.users.signIn(name: "mei")
            let (kaiHost, kaiSession) = try backend.users.signIn(name: "kai")
            try backend.users.setLink(
                .init(linkID: "l1", platformUserID: mei.id, accessToken: "mei-token", expiresAt: nil),
                for: meiHost.hostUserID)
            try backend.users.setLink(
                .init(linkID: "l2", platformUserID: kai.id, accessToken: "kai-token", expiresAt: nil),
                for: kaiHost.hostUserID)

            _ = try UserAdministration.setDisabled(true, reference: mei.id, reason: "hijacking", in: provider.store)
            try await waitUntil("mei's host session ended") {
                backend.users.user(meiHost.hostUserID)?.link?.accessToken == nil
            }
            #expect(backend.users.user(session: meiSession) == nil)
            #expect(backend.users.user(meiHost.hostUserID)?.link?.platformUserID == mei.id)
            // Another person's state is untouched.
            #expect(backend.users.user(session: kaiSession)?.hostUserID == kaiHost.hostUserID)
            #expect(backend.users.user(kaiHost.hostUserID)?.link?.accessToken == "kai-token")

            // An event it does not act on (enabled) is taken and changes nothing.
            _ = try UserAdministration.setDisabled(false, reference: kai.id, in: provider.store)
            _ = try UserAdministration.setDisabled(true, reference: kai.id, in: provider.store)
            try await waitUntil("kai's host session ended") {
                backend.users.user(kaiHost.hostUserID)?.link?.accessToken == nil
            }
            #expect(backend.users.logouts.count == 2)
        }
    }

    /// A forged SET (not signed by the platform) is refused with RFC 8935's error and changes nothing.
    @Test func aForgedEventIsRefused() async throws {
        try await ProviderHarness.with { provider in
            let platform = PlatformClient(
                issuer: try #require(URL(string: provider.base)), clientID: "host-app", clientSecret: Self.secret)
            let directory = provider.directory.appendingPathComponent("host-backend")
            let backend = try HostBackend(platform: platform, dataDirectory: directory, port: 0)
            try backend.start()
            defer { backend.shutdown() }
            let (user, session) = try backend.users.signIn(name: "mei")
            try backend.users.setLink(
                .init(linkID: "l1", platformUserID: "someone", accessToken: "t", expiresAt: nil), for: user.hostUserID)
            var request = URLRequest(url: try #require(URL(string: backend.securityEventsURI)))
            request.httpMethod = "POST"
            request.setValue("application/secevent+jwt", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data("eyJhbGciOiJub25lIn0.eyJzdWIiOiJzb21lb25lIn0.".utf8)
            let (data, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 400)
            let body = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect(body?["err"] as? String == "invalid_request")
            #expect(backend.users.user(session: session) != nil)
        }
    }
}
