import Foundation
import PorticoStore
import PorticoTesting
import Testing

/// An app's page in the developer console charts its sign-ins per day over the last 30 days:
/// code redemptions count on the day they happen, refreshes and refused redemptions do not,
/// and a day leaves the chart after 30 days.
@Suite struct SignInChartTests {
    /// The `data-sign-ins` of the chart's bars, oldest first.
    static func bars(_ page: TestReply) -> [Int] {
        page.text.components(separatedBy: #"data-sign-ins=""#).dropFirst().compactMap {
            Int($0.prefix { $0 != "\"" })
        }
    }

    @Test func signInsAreChartedPerDayAndOnlySignInsCount() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let browser = try await DeveloperConsoleTests.developer(provider)
            let (id, secret) = try await DeveloperConsoleTests.createWebApp(browser)
            let client = try #require(try provider.store.client(id: id))
            let credentials = ClientCredentials.basic(id: id, secret: secret)

            let empty = try await browser.get("/developer/apps/\(id)")
            #expect(Self.bars(empty) == Array(repeating: 0, count: 30))
            #expect(empty.text.contains("0 sign-ins in the last 30 days."))
            #expect(empty.text.contains(#"role="img" aria-label="Sign-ins per day over the last 30 days: 0 in all"#))

            let first = try await provider.signIn(
                user, to: client, scopes: ["openid", "offline_access"], credentials: credentials)
            _ = try await provider.signIn(user, to: client, scopes: ["openid"], credentials: credentials)
            // A refresh is not a sign-in; neither is a code redeemed with the wrong verifier.
            let refreshToken = try #require(first.string("refresh_token"))
            #expect(try await provider.refresh(refreshToken, client: credentials).status == 200)
            let code = try provider.issueCode(for: client, user: user, scopes: ["openid"])
            let refused = try await provider.token(
                [
                    ("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", code.redirectURI),
                    ("code_verifier", String(repeating: "x", count: 50)),
                ], client: credentials)
            #expect(refused.status == 400)

            provider.clock.advance(by: 86_400)
            _ = try await provider.signIn(user, to: client, scopes: ["openid"], credentials: credentials)
            // A day on, the console session has ended: sign in again.
            let again = try await DeveloperConsoleTests.developer(provider, accept: false)
            let page = try await again.get("/developer/apps/\(id)")
            #expect(Self.bars(page) == Array(repeating: 0, count: 28) + [2, 1])
            #expect(page.text.contains("3 sign-ins in the last 30 days."))
            #expect(page.text.contains("at most 2 on one day"))
            let dates = ISO8601DateFormatter()
            dates.formatOptions = [.withFullDate]
            let today = dates.string(from: provider.clock.now)
            #expect(page.text.contains("<title>\(today): 1 sign-in</title>"))

            let chinese = try await again.get("/developer/apps/\(id)?ui_locales=zh-CN")
            #expect(chinese.text.contains("近 30 天共登录 3 次。"))

            provider.clock.advance(by: 29 * 86_400)
            let later = try await DeveloperConsoleTests.developer(provider, accept: false).get("/developer/apps/\(id)")
            #expect(Self.bars(later) == [1] + Array(repeating: 0, count: 29))
        }
    }

    /// A TV's device login counts once, when its approved code is redeemed: not while the
    /// person has not yet approved, and not for a poll after it.
    @Test func anApprovedDeviceLoginCountsOnce() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addDeviceClient()
            let login = try await harness.startDeviceLogin(client)
            let pending = try await harness.poll(login, clientID: client.id)
            #expect(pending.string("error") == "authorization_pending")
            try harness.approve(login, as: user)
            #expect(try await harness.poll(login, clientID: client.id).status == 200)
            #expect(try await harness.poll(login, clientID: client.id).status == 400)
            let counts = try harness.store.read { try $0.signInsPerDay(clientID: client.id, from: 0) }
            #expect(counts.map(\.count) == [1])
        }
    }
}
