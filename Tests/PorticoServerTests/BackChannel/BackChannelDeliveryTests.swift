import Foundation
import PorticoCrypto
import PorticoStore
import PorticoStoreSQLite
import PorticoTesting
import Testing

@testable import PorticoServer

/// Delivery from the durable outbox: retries until the app's backend answers, across a restart
/// of the provider, a fresh token per attempt, giving up after the retry window, the metrics,
/// and several providers on one database delivering each message once.
@Suite struct BackChannelDeliveryTests {
    /// A logout owed to `client` for `userID`, enqueued as the provider's events do.
    private func enqueue(_ provider: ProviderHarness, client: Client, userIDs: [String]) throws {
        try provider.store.transaction { transaction in
            for userID in userIDs {
                try BackChannelLogout.enqueue(
                    userID: userID, clientIDs: [client.id], sessionID: nil, now: provider.clock.now, in: transaction)
            }
        }
    }

    private func pending(_ provider: ProviderHarness) throws -> [OutboxMessage] {
        try provider.store.read { try $0.pendingOutboxMessages(topic: BackChannelLogout.topic, limit: 100) }
    }

    /// The value of the metric line `name` (without labels) in `/metrics`.
    private func metric(_ name: String, in provider: ProviderHarness) async throws -> Double? {
        let text = try await provider.get("/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    /// The backend is down when the app is removed; the provider keeps trying, is restarted
    /// (the message is a row), and delivers once the backend is back.
    @Test func aBackendThatIsDownGetsTheTokenWhenItIsBackEvenAfterARestart() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { provider in
            let user = try provider.addUser()
            let receiver = try LogoutReceiver(running: false)
            let shop = try provider.addBackChannelClient(name: "Shop", receiver: receiver)
            let browser = TestBrowser(base: provider.base)
            _ = try await provider.authorizeAndRedeem(browser, client: shop)
            let page = try await browser.get("/account")
            let csrf = try #require(page.hiddenField("csrf_token"))
            #expect(try await browser.post("/account", [("csrf_token", csrf), ("revoke", shop.id)]).status == 303)

            try await waitUntil("a failed attempt") { try pending(provider).first?.failedAttempts ?? 0 >= 2 }
            let waiting = try #require(try pending(provider).first)
            #expect(waiting.lastError?.contains("127.0.0.1") == true)
            try await provider.restart()
            #expect(try pending(provider).count == 1)
            try receiver.start()

            let tokens = try await receiver.tokens(atLeast: 1)
            try await provider.waitForEmptyOutbox()
            #expect(receiver.tokens.count == 1)
            let claims = try await provider.verifiedLogoutToken(try #require(tokens.first), for: shop)
            #expect(claims.subject == user.id)
            let delivered = try provider.store.read { try $0.outboxMessage(id: waiting.id) }
            #expect(delivered?.deliveredAt != nil)
        }
    }

    /// A backend that answers 503 gets the message again with a fresh token (new `jti`, `iat`
    /// at the attempt), and the metrics count the retry, the delivery and nothing pending.
    @Test func aFailingBackendIsRetriedWithFreshTokensAndTheMetricsCount() async throws {
        let configuration = backChannelConfiguration { $0.metrics = true }
        try await ProviderHarness.with(configuration: configuration) { provider in
            let receiver = try LogoutReceiver()
            receiver.answer(with: .serviceUnavailable)
            let shop = try provider.addBackChannelClient(name: "Shop", receiver: receiver, idTokenAlgorithm: "ES256")
            try enqueue(provider, client: shop, userIDs: ["someone"])
            _ = try await receiver.tokens(atLeast: 1)
            #expect(try await metric("portico_backchannel_logout_pending", in: provider) == 1)
            // Every attempt from the second one received after this point was signed after it.
            let seen = receiver.tokens.count
            provider.clock.advance(by: 5)
            _ = try await receiver.tokens(atLeast: seen + 2)
            receiver.answer(with: .ok)
            try await provider.waitForEmptyOutbox()

            let tokens = receiver.tokens
            var identifiers: Set<String> = []
            var issued: [Date] = []
            for token in tokens {
                let claims = try await provider.verifiedLogoutToken(token, for: shop)
                identifiers.insert(try #require(claims.jwtID))
                issued.append(try #require(claims.issuedAt))
            }
            #expect(identifiers.count == tokens.count, "a retry carried the same jti")
            #expect(try #require(issued.max()) > (try #require(issued.first)), "a retry was not signed anew")
            // Counted just after the row is written.
            try await waitUntil("the delivery counted") {
                try await metric("portico_backchannel_logout_delivered_total", in: provider) == 1
            }
            #expect(try await metric("portico_backchannel_logout_retries_total", in: provider) ?? 0 >= 2)
            #expect(try await metric("portico_backchannel_logout_failed_total", in: provider) == 0)
            // The gauge follows the outbox at the deliverer's next look.
            try await waitUntil("the pending gauge at 0") {
                try await metric("portico_backchannel_logout_pending", in: provider) == 0
            }
        }
    }

    /// Past the retry window a message is given up (and counted); one for a removed app at once.
    @Test func aMessageIsGivenUpAfterTheRetryWindowOrWhenItsAppIsGone() async throws {
        let configuration = backChannelConfiguration {
            $0.metrics = true
            $0.backchannelLogout.retryWindow = .zero
        }
        try await ProviderHarness.with(configuration: configuration) { provider in
            let receiver = try LogoutReceiver()
            receiver.answer(with: .serviceUnavailable)
            let shop = try provider.addBackChannelClient(name: "Shop", receiver: receiver)
            try enqueue(provider, client: shop, userIDs: ["someone"])
            try await provider.waitForEmptyOutbox()
            #expect(receiver.tokens.count == 1)
            try await waitUntil("the give-up counted") {
                try await metric("portico_backchannel_logout_failed_total", in: provider) == 1
            }

            let news = try provider.addBackChannelClient(name: "News", receiver: receiver)
            // The app is removed in the transaction that enqueued its message (no delivery can
            // come between).
            try provider.store.transaction { transaction in
                try BackChannelLogout.enqueue(
                    userID: "someone", clientIDs: [news.id], sessionID: nil, now: provider.clock.now, in: transaction)
                try transaction.deleteClient(id: news.id)
            }
            try await provider.waitForEmptyOutbox()
            try await waitUntil("the second give-up counted") {
                try await metric("portico_backchannel_logout_failed_total", in: provider) == 2
            }
            #expect(receiver.tokens.count == 1)
        }
    }

    /// Two providers on one SQLite file share the outbox: every message reaches the backend
    /// exactly once.
    @Test func twoProvidersOnOneDatabaseDeliverEachMessageOnce() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { provider in
            guard case .file(let path) = provider.store.location else {
                Issue.record("the harness's SQLite database is a file")
                return
            }
            let second = try IdentityProvider(
                configuration: provider.configuration, store: try SQLiteStore(path: path, backgroundCheckpoints: true))
            try second.start()
            defer { second.shutdown() }
            let receiver = try LogoutReceiver()
            let shop = try provider.addBackChannelClient(name: "Shop", receiver: receiver)
            let people = (0..<30).map { "person-\($0)" }
            try enqueue(provider, client: shop, userIDs: people)
            _ = try await receiver.tokens(atLeast: people.count)
            try await provider.waitForEmptyOutbox()
            let subjects = receiver.tokens.compactMap { token -> String? in
                let parts = token.split(separator: ".")
                return Base64URL.decode(parts[1]).flatMap { try? JWTClaims(json: $0) }?.subject
            }
            #expect(subjects.count == people.count, "a message was delivered more than once")
            #expect(Set(subjects) == Set(people))
        }
    }
}
