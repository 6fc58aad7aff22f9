import Foundation
import PorticoServer
import PorticoStore
import Testing

@testable import PorticoKit

/// Signing out wins over work in flight: a refresh does not bring the grant back, and every
/// kind of interactive authorization ends.
@Suite(.serialized)
struct SignOutTests {
    @Test func aSignOutDuringARefreshIsNotUndone() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let store = GatedTokenStore()
            // No revocation endpoint: the provider would still honour the refresh token, so only
            // the SDK can keep the refresh from saving after the sign-out.
            let manager = try await harness.signIn(person, client: try harness.addPublicClient(), store: store) {
                $0.revocationEndpoint = nil
            }
            try expireAccessToken(of: manager)
            // validAccessToken reads once itself; the refresh's own read is held.
            store.arm(skipping: 1)
            let refresh = Task { try await manager.validAccessToken() }
            await store.held.wait()
            try await manager.signOut()
            store.open()
            let error = await #expect(throws: AuthorizationError.self) { try await refresh.value }
            #expect(error?.code == .authorizationRequired)
            #expect(try store.grant(for: manager.storeKey) == nil)
        }
    }

    @Test func signingOutEndsALoopbackSignIn() async throws {
        try await KitHarness.with { harness in
            let client = try harness.addPublicClient()
            let opened = Signal()
            // A browser that opens and then nobody signs in.
            let manager = try await harness.manager(
                for: client,
                userAgent: SystemBrowserUserAgent(timeout: .seconds(30), opener: BrowserOpener { _ in opened.fire() }))
            let signIn = Task { try await manager.authorize(AuthorizeRequest(scopes: [.profile])) }
            await opened.wait()
            try await manager.signOut()
            let error = await #expect(throws: AuthorizationError.self) { try await signIn.value }
            #expect(error?.code == .cancelled)
            #expect(error?.message == "the app signed out during the authorization")
        }
    }

    @Test func signingOutEndsADeviceSignIn() async throws {
        try await KitHarness.with { harness in
            let client = try harness.addPublicClient(grants: DeviceFlowEndToEndTests.deviceGrants)
            let prompted = Signal()
            let manager = try await harness.manager(
                for: client, userAgent: DeviceCodeUserAgent { _ in prompted.fire() })
            let signIn = Task { try await manager.authorize(AuthorizeRequest(scopes: [.profile])) }
            await prompted.wait()
            try await manager.signOut()
            let error = await #expect(throws: AuthorizationError.self) { try await signIn.value }
            #expect(error?.code == .cancelled)
            #expect(try manager.store.grant(for: manager.storeKey) == nil)
        }
    }
}
