import Foundation
import Synchronization
import Testing

@testable import PorticoKit

/// `CallbackRouter` with sign-in and payment results on one host, as Alipay sends them on
/// `safepay`: the sign-in must reach the manager even though the payment handler claims the host.
struct CallbackRouterTests {
    /// A provider nobody calls: with `.authorizationCode` the manager stops at the code.
    let provider = Provider(
        issuer: "https://platform.example", authorizationEndpoint: URL(string: "https://platform.example/authorize")!,
        tokenEndpoint: URL(string: "https://platform.example/token")!)

    /// A manager whose custom-scheme authorization is pending, its authorization URL captured.
    private func pendingSignIn() async throws -> (AuthorizationManager, Task<AuthorizeResult, any Error>, state: String)
    {
        let opened = Mutex<URL?>(nil)
        let signal = Signal()
        let agent = CustomSchemeRedirect(
            opener: BrowserOpener { url in
                opened.withLock { $0 = url }
                signal.fire()
            }, timeout: .seconds(30))
        let manager = AuthorizationManager(
            provider: provider, clientID: "host-app", redirectURI: URL(string: "hostapp://safepay/auth"),
            store: InMemoryTokenStore(), userAgent: agent)
        let task = Task {
            try await manager.authorize(AuthorizeRequest(scopes: [.accountLink], grantType: .authorizationCode))
        }
        await signal.wait()
        let url = try #require(opened.withLock { $0 })
        let state = try #require(
            URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value)
        return (manager, task, state)
    }

    @Test func signInAndPaymentResultsOnOneHostEachReachTheirHandler() async throws {
        let (manager, signIn, state) = try await pendingSignIn()
        let payments = Mutex<[URL]>([])
        let router = CallbackRouter()
        // Registered first and claiming the whole host, as the mPaaS sample does.
        router.register(
            "payment", claims: { $0.host == "safepay" }, handle: { url in payments.withLock { $0.append(url) } })
        router.register(signInsOf: manager)

        let payment = URL(string: "hostapp://safepay/?resultStatus=9000&memo=ok&result=%7B%7D")!
        #expect(router.route(payment))
        #expect(
            router.handlerName(for: URL(string: "hostapp://safepay/auth?code=c1&state=\(state)")!) == "sign-in host-app"
        )
        #expect(router.route(URL(string: "hostapp://safepay/auth?code=c1&state=\(state)")!))

        let result = try await signIn.value
        #expect(result.authorizationCode == "c1")
        #expect(payments.withLock { $0 } == [payment])
    }

    @Test func anErrorResultForThePendingStateIsASignInResultToo() async throws {
        let (manager, signIn, state) = try await pendingSignIn()
        let router = CallbackRouter()
        router.register("payment", claims: { $0.host == "safepay" }, handle: { _ in })
        router.register(signInsOf: manager)
        #expect(router.route(URL(string: "hostapp://safepay/auth?error=access_denied&state=\(state)")!))
        let error = await #expect(throws: AuthorizationError.self) { _ = try await signIn.value }
        #expect(error?.code == .accessDenied)
    }

    @Test func aForeignStateOrNoPendingAuthorizationIsNotASignIn() async throws {
        let (manager, signIn, state) = try await pendingSignIn()
        let router = CallbackRouter()
        router.register(signInsOf: manager)
        // Another attempt's state, and a URL with the state but neither code nor error: refused.
        #expect(!router.route(URL(string: "hostapp://safepay/auth?code=c1&state=forged")!))
        #expect(!router.route(URL(string: "hostapp://safepay/auth?state=\(state)")!))
        #expect(router.route(URL(string: "hostapp://safepay/auth?code=c2&state=\(state)")!))
        #expect(try await signIn.value.authorizationCode == "c2")
        // The authorization is over: the same URL again is nobody's.
        #expect(!router.route(URL(string: "hostapp://safepay/auth?code=c2&state=\(state)")!))
    }

    @Test func unknownURLsAreRefusedAndEachURLGoesToOneHandler() {
        let router = CallbackRouter()
        let calls = Mutex<[String]>([])
        router.register(
            "payment", claims: { $0.host == "safepay" }, handle: { _ in calls.withLock { $0.append("payment") } })
        router.register(
            "deep link", claims: { $0.scheme == "hostapp" }, handle: { _ in calls.withLock { $0.append("deep") } })
        #expect(!router.route(URL(string: "otherapp://elsewhere/")!))
        #expect(router.handlerName(for: URL(string: "otherapp://x")!) == nil)
        #expect(router.route(URL(string: "hostapp://safepay/?resultStatus=6001")!))
        #expect(router.route(URL(string: "hostapp://open/item/7")!))
        #expect(calls.withLock { $0 } == ["payment", "deep"])
    }
}
