import Foundation
import PorticoHTTP
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// A session starts in one transaction with what its caller gives to commit alongside (a
/// passkey's counter and its throttle attempt taken back): when that part refuses, nothing of
/// the sign-in is written.
@Suite struct SignInSessionAlongsideTests {
    struct CounterMoved: Error {}

    @Test func aRefusalAlongsideLeavesNoSessionAndNoSignInRow() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let environment = PageEnvironment(harness.provider.context)
            let request = Request(method: .post, path: PasskeyEndpoint.signInPath, remoteAddress: "192.0.2.1")
            func start(refusing: Bool) throws {
                _ = try SignInSession.start(
                    for: user, persistent: false, methods: PasskeyEndpoint.deviceBoundMethods, replacing: nil,
                    request: request, environment: environment
                ) { transaction in
                    try transaction.append(
                        AuditEvent(occurredAt: Date(), actor: user.id, action: "test.alongside", subject: user.id))
                    if refusing { throw CounterMoved() }
                }
            }
            #expect(throws: CounterMoved.self) { try start(refusing: true) }
            #expect(try harness.store.sessions(userID: user.id).isEmpty)
            var actions = try harness.store.recentAuditEvents(limit: 50).map(\.action)
            #expect(!actions.contains("session.start") && !actions.contains("test.alongside"))

            try start(refusing: false)
            #expect(try harness.store.sessions(userID: user.id).count == 1)
            actions = try harness.store.recentAuditEvents(limit: 50).map(\.action)
            #expect(actions.contains("session.start") && actions.contains("test.alongside"))
        }
    }
}
