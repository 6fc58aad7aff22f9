import Foundation
import PorticoHTTP
import Synchronization
import Testing

@testable import PorticoKit

/// Device login: the polling rules, and both dialects against a small local endpoint that
/// answers as a provider would (the real provider's device endpoints arrive with their issue).
@Suite(.serialized)
struct DeviceCodeTests {
    @Test func pendingKeepsTheIntervalAndSlowDownAddsFiveSeconds() {
        let start = Date()
        var schedule = DevicePollingSchedule(interval: 2, expiresAt: start.addingTimeInterval(600))
        #expect(schedule.next(after: "authorization_pending", now: start) == .pollAgain(after: 2))
        #expect(schedule.next(after: "slow_down", now: start) == .pollAgain(after: 7))
        #expect(schedule.next(after: "authorization_pending", now: start) == .pollAgain(after: 7))
        #expect(schedule.next(after: "slow_down", now: start) == .pollAgain(after: 12))
        #expect(schedule.next(after: "access_denied", now: start) == .stop)
        #expect(schedule.next(after: "expired_token", now: start) == .stop)
    }

    @Test func theDefaultIntervalIsFiveSecondsAndPollingStopsAtExpiry() {
        let start = Date()
        var schedule = DevicePollingSchedule(interval: nil, expiresAt: start.addingTimeInterval(8))
        #expect(schedule.interval == 5)
        #expect(schedule.next(after: "authorization_pending", now: start) == .pollAgain(after: 5))
        #expect(schedule.next(after: "authorization_pending", now: start.addingTimeInterval(4)) == .stop)
    }

    @Test func standardDialectPollsUntilApproved() async throws {
        let endpoint = try FakeDeviceProvider(answers: ["authorization_pending", "slow_down", nil])
        defer { endpoint.stop() }
        let sleeps = Mutex<[TimeInterval]>([])
        let prompts = Mutex<[DeviceCodePrompt]>([])
        let agent = DeviceCodeUserAgent(
            onPrompt: { prompt in prompts.withLock { $0.append(prompt) } },
            sleep: { seconds in sleeps.withLock { $0.append(seconds) } })
        let tokenStore = InMemoryTokenStore()
        let manager = AuthorizationManager(
            provider: endpoint.provider(dialect: .standard), clientID: "tv-app", store: tokenStore, userAgent: agent)

        let result = try await manager.authorize(AuthorizeRequest(scopes: [.profile]))

        #expect(result.accessToken == "device-access-token")
        #expect(prompts.withLock { $0.map(\.userCode) } == ["WDJB-MJHT"])
        #expect(prompts.withLock { $0.first?.verificationURL.absoluteString } == "https://id.example/device")
        #expect(sleeps.withLock { $0 } == [1, 1, 6])
        let requests = endpoint.requests.withLock { $0 }
        #expect(requests.first?["client_id"] == "tv-app")
        #expect(requests.first?["scope"] == "profile")
        #expect(requests.dropFirst().allSatisfy { $0["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code" })
        #expect(requests.dropFirst().allSatisfy { $0["device_code"] == "dev-code" && $0["user_code"] == nil })
        #expect(try tokenStore.grant(for: manager.storeKey)?.refreshToken == "device-refresh-token")
    }

    @Test func loginWithAmazonDialectSendsTheCodePairFields() async throws {
        let endpoint = try FakeDeviceProvider(answers: ["authorization_pending", nil])
        defer { endpoint.stop() }
        let agent = DeviceCodeUserAgent(onPrompt: { _ in }, sleep: { _ in })
        let manager = AuthorizationManager(
            provider: endpoint.provider(dialect: .loginWithAmazon), clientID: "tv-app", store: InMemoryTokenStore(),
            userAgent: agent)
        _ = try await manager.authorize(AuthorizeRequest(scopes: [.profile]))
        let requests = endpoint.requests.withLock { $0 }
        #expect(requests.first?["response_type"] == "device_code")
        #expect(requests.dropFirst().allSatisfy { $0["grant_type"] == "device_code" && $0["user_code"] == "WDJB-MJHT" })
    }

    @Test func aDeclinedOrExpiredCodeEndsTheWait() async throws {
        for (answer, code) in [("access_denied", AuthorizationError.Code.accessDenied), ("expired_token", .timedOut)] {
            let endpoint = try FakeDeviceProvider(answers: ["authorization_pending", answer])
            defer { endpoint.stop() }
            let manager = AuthorizationManager(
                provider: endpoint.provider(dialect: .standard), clientID: "tv-app", store: InMemoryTokenStore(),
                userAgent: DeviceCodeUserAgent(onPrompt: { _ in }, sleep: { _ in }))
            let error = await #expect(throws: AuthorizationError.self) {
                try await manager.authorize(AuthorizeRequest(scopes: [.profile]))
            }
            #expect(error?.code == code)
        }
    }

    @Test func cancellingStopsThePolling() async throws {
        let endpoint = try FakeDeviceProvider(answers: Array(repeating: "authorization_pending", count: 1000))
        defer { endpoint.stop() }
        let prompted = AsyncStream<Void>.makeStream()
        let manager = AuthorizationManager(
            provider: endpoint.provider(dialect: .standard), clientID: "tv-app", store: InMemoryTokenStore(),
            userAgent: DeviceCodeUserAgent(onPrompt: { _ in prompted.continuation.yield() }))
        let task = Task { try await manager.authorize(AuthorizeRequest(scopes: [.profile])) }
        var iterator = prompted.stream.makeAsyncIterator()
        _ = await iterator.next()
        task.cancel()
        let error = await #expect(throws: AuthorizationError.self) { try await task.value }
        #expect(error?.code == .cancelled)
    }
}

/// A local device endpoint and token endpoint on PorticoHTTP that answer the polls from a script.
final class FakeDeviceProvider: Sendable {
    let server: HTTPServer
    let requests = Mutex<[[String: String]]>([])
    private let answers: Mutex<[String?]>

    /// `answers`: one per poll, an OAuth error code, or nil for success.
    init(answers: [String?]) throws {
        self.answers = Mutex(answers)
        let router = Router()
        let server = HTTPServer(
            configuration: ServerConfiguration(port: 0, threads: 1, logRequests: false), router: router)
        self.server = server
        router.post("/device") { [self] request in
            record(request)
            return .json(
                raw:
                    #"{"device_code":"dev-code","user_code":"WDJB-MJHT","verification_uri":"https://id.example/device","expires_in":600,"interval":1}"#
            )
        }
        router.post("/token") { [self] request in
            record(request)
            let next = self.answers.withLock { $0.isEmpty ? "expired_token" : $0.removeFirst() }
            if let error = next { return .json(raw: #"{"error":"\#(error)"}"#, status: .badRequest) }
            return .json(
                raw:
                    #"{"access_token":"device-access-token","token_type":"bearer","expires_in":3600,"refresh_token":"device-refresh-token"}"#
            )
        }
        try server.start()
    }

    private func record(_ request: PorticoHTTP.Request) {
        var fields: [String: String] = [:]
        for (name, value) in (try? FormParameters(decoding: request.body)) ?? FormParameters() { fields[name] = value }
        requests.withLock { $0.append(fields) }
    }

    func provider(dialect: Provider.DeviceCodeDialect) -> Provider {
        let base = "http://127.0.0.1:\(server.port)"
        return Provider(
            issuer: nil, authorizationEndpoint: URL(string: base + "/authorize")!,
            tokenEndpoint: URL(string: base + "/token")!, deviceAuthorizationEndpoint: URL(string: base + "/device")!,
            deviceCodeDialect: dialect)
    }

    func stop() { server.shutdown() }
}
