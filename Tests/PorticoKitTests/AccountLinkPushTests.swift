import Foundation
import PorticoServer
import PorticoStore
import PorticoTesting
import Synchronization
import Testing

@testable import PorticoKit

/// The account-link host kit with pushed authorization requests (RFC 9126): the host app is a
/// confidential client, so its request goes through the host backend, which pushes it with the
/// host's credentials; a host held to PAR links only that way.
@Suite("Account link with PAR") struct AccountLinkPushTests {
    /// Holds the world's host client to PAR (`client add --require-par`).
    private func requirePAR(_ world: AccountLinkWorld) throws {
        var host = world.host
        host.requiresPAR = true
        try world.provider.store.transaction { try $0.update(host) }
    }

    @Test("a host held to PAR links through its backend's push; the browser carries only request_uri")
    func linksThroughTheBackendsPush() async throws {
        try await AccountLinkWorld.with { world in
            try requirePAR(world)
            let app = try await world.hostApp()
            let robot = world.robot()
            let opened = LockedState<[URL]>([])
            let manager = try await world.manager(
                opener: BrowserOpener { url in
                    opened.withLock { $0.append(url) }
                    Task { try? await robot.signIn(at: url) }
                })
            let model = try await world.session(manager, app: app).authModel()
            #expect(model.uid == world.person.id)
            let url = try #require(opened.withLock { $0.first })
            let names = Set(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.map(\.name) ?? [])
            #expect(names == ["client_id", "request_uri"])
        }
    }

    @Test("pushing from the device, without the host's credentials, is refused with the platform's words")
    func theDeviceCannotPushForAConfidentialHost() async throws {
        try await AccountLinkWorld.with { world in
            try requirePAR(world)
            let app = try await world.hostApp()
            let opened = LockedState<[URL]>([])
            let manager = try await world.manager(
                opener: BrowserOpener { url in opened.withLock { $0.append(url) } },
                pushedAuthorization: .whenAdvertised)
            let error = await #expect(throws: AccountLinkError.self) {
                try await world.session(manager, app: app).authModel()
            }
            #expect(error?.authorizationError?.oauthError == "invalid_client", "\(String(describing: error))")
            #expect(error?.authorizationError?.description.contains("PushedAuthorizationMode.through") == true)
            #expect(opened.withLock { $0.isEmpty })
            // The backend pushes only for a signed-in host app.
            let anonymous = try await HostAppClient(base: world.backendURL).send(
                "POST", "host/par", form: [("response_type", "code")])
            #expect(anonymous.status == 401)
        }
    }
}
