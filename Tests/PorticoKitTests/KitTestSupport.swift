import Foundation
import PorticoStore
import Synchronization
import Testing

@testable import PorticoKit

/// A one-shot signal a test awaits and a callback fires (from any thread).
final class Signal: Sendable {
    private let state = Mutex<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func fire() {
        let waiters = state.withLock { current -> [CheckedContinuation<Void, Never>] in
            current.fired = true
            defer { current.waiters = [] }
            return current.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let fired = state.withLock { current -> Bool in
                if !current.fired { current.waiters.append(continuation) }
                return current.fired
            }
            if fired { continuation.resume() }
        }
    }
}

/// An in-memory store that holds one chosen read until the test releases it: the way to make
/// a sign-out happen in the middle of a refresh.
final class GatedTokenStore: TokenStore {
    private let inner = InMemoryTokenStore()
    private let readsBeforeGate = Mutex<Int?>(nil)
    /// Fired when the gated read has read its value and is held.
    let held = Signal()
    private let release = DispatchSemaphore(value: 0)

    /// Holds the read after the next `skipping` reads.
    func arm(skipping: Int) { readsBeforeGate.withLock { $0 = skipping } }

    /// Lets the held read return.
    func open() { release.signal() }

    func grant(for key: TokenStoreKey) throws -> StoredGrant? {
        let value = try inner.grant(for: key)
        let gate = readsBeforeGate.withLock { remaining -> Bool in
            guard let count = remaining else { return false }
            if count == 0 {
                remaining = nil
                return true
            }
            remaining = count - 1
            return false
        }
        if gate {
            held.fire()
            _ = release.wait(timeout: .now() + 60)
        }
        return value
    }

    func save(_ grant: StoredGrant, for key: TokenStoreKey) throws { try inner.save(grant, for: key) }
    func removeGrant(for key: TokenStoreKey) throws { try inner.removeGrant(for: key) }
    var coordinationKey: String { inner.coordinationKey }
}

extension KitHarness {
    /// Signs `person` in through the loopback flow with `manager`'s settings and returns it.
    func signIn(
        _ person: UserRecord, client: Client, store: any TokenStore = InMemoryTokenStore(),
        scopes: [Scope] = [.openID, .profile], adjust: (inout Provider) -> Void = { _ in }
    ) async throws -> AuthorizationManager {
        let robot = SignInRobot(email: person.email, password: password)
        var provider = try await Provider.discover(issuer: issuer)
        adjust(&provider)
        let manager = AuthorizationManager(
            provider: provider, clientID: client.id, redirectURI: URL(string: client.redirectURIs[0]), store: store,
            userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener))
        _ = try await manager.authorize(AuthorizeRequest(scopes: scopes))
        return manager
    }
}

/// Makes the stored access token look expired.
func expireAccessToken(of manager: AuthorizationManager) throws {
    var grant = try #require(try manager.store.grant(for: manager.storeKey))
    grant.expiresAt = Date().addingTimeInterval(-10)
    try manager.store.save(grant, for: manager.storeKey)
}
