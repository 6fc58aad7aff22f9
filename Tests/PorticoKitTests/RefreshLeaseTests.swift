import Foundation
import Testing

@testable import PorticoKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The cross-process refresh lease (the keychain's on Apple) over its Linux twin: a file that
/// only one holder can create (`link` fails with EEXIST as `SecItemAdd` answers
/// `errSecDuplicateItem`), and that, like a keychain item, outlives a holder that crashed.
@Suite(.serialized)
struct RefreshLeaseTests {
    private static func lease(at path: String, duration: TimeInterval = 60) -> RefreshLease {
        var lease = RefreshLease(
            claim: { lease in
                let scratch = path + "." + lease.identifier
                let text = "\(lease.identifier) \(lease.expiresAt.timeIntervalSince1970)"
                try Data(text.utf8).write(to: URL(fileURLWithPath: scratch))
                defer { unlink(scratch) }
                if link(scratch, path) == 0 { return .acquired }
                guard errno == EEXIST else { throw AuthorizationError(.storage, "cannot link the lease") }
                guard let found = try? String(contentsOfFile: path, encoding: .utf8) else { return .held(nil) }
                let parts = found.split(separator: " ")
                guard parts.count == 2, let expiry = TimeInterval(String(parts[1])) else {
                    return .held(RefreshLease.Lease(identifier: "", expiresAt: .distantPast))
                }
                return .held(
                    RefreshLease.Lease(identifier: String(parts[0]), expiresAt: Date(timeIntervalSince1970: expiry)))
            },
            remove: { lease in
                guard let found = try? String(contentsOfFile: path, encoding: .utf8),
                    found.hasPrefix(lease.identifier + " ")
                else { return }
                unlink(path)
            })
        lease.duration = duration
        lease.pollInterval = .milliseconds(10)
        return lease
    }

    private static func directory() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lease-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    /// Two holders (as two processes would) never refresh at once.
    @Test func holdersTakeTurns() async throws {
        let path = try Self.directory() + "/grant.lease"
        let inside = LockedState((now: 0, most: 0, runs: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    try await Self.lease(at: path).whileHolding {
                        inside.withLock {
                            $0.now += 1
                            $0.most = max($0.most, $0.now)
                        }
                        try await Task.sleep(for: .milliseconds(30))
                        inside.withLock {
                            $0.now -= 1
                            $0.runs += 1
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(inside.withLock { $0.most } == 1)
        #expect(inside.withLock { $0.runs } == 6)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// A holder that crashed leaves its lease: once expired it is broken; while live it is not.
    @Test func anExpiredLeaseIsBrokenAndALiveOneWaitedFor() async throws {
        let path = try Self.directory() + "/grant.lease"
        try Data("crashed \(Date().timeIntervalSince1970 - 5)".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try await Self.lease(at: path).whileHolding { 1 } == 1)

        try Data("alive \(Date().timeIntervalSince1970 + 60)".utf8).write(to: URL(fileURLWithPath: path))
        let waiting = Task { try await Self.lease(at: path).whileHolding { 2 } }
        try await Task.sleep(for: .milliseconds(200))
        #expect(FileManager.default.fileExists(atPath: path))
        waiting.cancel()
        let error = await #expect(throws: AuthorizationError.self) { try await waiting.value }
        #expect(error?.code == .cancelled)
        // Removing a lease by an old identifier never removes the holder's newer one.
        try Self.lease(at: path).remove(RefreshLease.Lease(identifier: "crashed", expiresAt: .distantPast))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    /// `signInState` tells "signed out" from "the store cannot be read" (a locked keychain on
    /// Apple; here a token file others could read, which the file store refuses).
    @Test func signInStateTellsSignedOutFromUnreadable() async throws {
        let directory = URL(fileURLWithPath: try Self.directory())
        let store = FileTokenStore(directory: directory)
        let provider = Provider(
            issuer: "https://id.example", authorizationEndpoint: URL(string: "https://id.example/authorize")!,
            tokenEndpoint: URL(string: "https://id.example/token")!)
        let manager = AuthorizationManager(provider: provider, clientID: "app", store: store)
        guard case .signedOut = manager.signInState else {
            Issue.record("not signed out")
            return
        }
        try store.save(
            StoredGrant(accessToken: "a", expiresAt: nil, refreshToken: nil, scopes: []), for: manager.storeKey)
        guard case .signedIn = manager.signInState else {
            Issue.record("not signed in")
            return
        }
        chmod(store.fileURL(for: manager.storeKey).path, 0o644)
        guard case .unavailable(let error) = manager.signInState else {
            Issue.record("not unavailable")
            return
        }
        #expect(error.code == .storage)
        #expect(!error.isLockedKeychain)
        #expect(!manager.isSignedIn)
    }
}
