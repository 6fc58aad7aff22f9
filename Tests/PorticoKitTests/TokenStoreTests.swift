import Foundation
import Testing

@testable import PorticoKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file store's permissions and atomic replacement, and redaction everywhere.
struct TokenStoreTests {
    let key = TokenStoreKey(provider: "https://id.example", clientID: "app-1")
    let grant = StoredGrant(
        accessToken: "secret-access-token", expiresAt: Date(timeIntervalSince1970: 2_000_000_000),
        refreshToken: "secret-refresh-token", scopes: ["openid", "profile"],
        idTokenClaims: ["sub": "user-1", "auth_time": 1_700_000_000],
        user: PorticoKit.User(userID: "user-1", name: "Ann", email: "ann@example.com"))

    private func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("portico-kit-store-\(UUID())/tokens")
    }

    private func mode(_ path: String) -> mode_t {
        var status = stat()
        stat(path, &status)
        return status.st_mode & 0o777
    }

    @Test func savesOwnerOnlyFilesAndReadsThemBack() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let store = FileTokenStore(directory: directory)
        #expect(try store.grant(for: key) == nil)
        try store.save(grant, for: key)
        #expect(mode(store.fileURL(for: key).path) == 0o600)
        #expect(mode(directory.path) == 0o700)
        #expect(try store.grant(for: key) == grant)
        // A second store on the same directory is the same storage.
        let other = FileTokenStore(directory: directory)
        #expect(other.coordinationKey == store.coordinationKey)
        #expect(try other.grant(for: key) == grant)
        // Another client is another file.
        #expect(try store.grant(for: TokenStoreKey(provider: "https://id.example", clientID: "app-2")) == nil)
    }

    @Test func replacesAtomicallyAndLeavesNoTemporaryFiles() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let store = FileTokenStore(directory: directory)
        try store.save(grant, for: key)
        var newer = grant
        newer.accessToken = "newer"
        try store.save(newer, for: key)
        #expect(try store.grant(for: key)?.accessToken == "newer")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [key.storageName + ".json"])
        try store.removeGrant(for: key)
        try store.removeGrant(for: key)
        #expect(try store.grant(for: key) == nil)
    }

    @Test func refusesAFileOthersCanRead() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let store = FileTokenStore(directory: directory)
        try store.save(grant, for: key)
        for unsafe: mode_t in [0o644, 0o640, 0o604] {
            chmod(store.fileURL(for: key).path, unsafe)
            let error = #expect(throws: AuthorizationError.self) { try store.grant(for: key) }
            #expect(error?.code == .storage)
        }
    }

    @Test func aCorruptFileIsAStorageError() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let store = FileTokenStore(directory: directory)
        try store.save(grant, for: key)
        try Data("not json".utf8).write(to: store.fileURL(for: key))
        chmod(store.fileURL(for: key).path, 0o600)
        let error = #expect(throws: AuthorizationError.self) { try store.grant(for: key) }
        #expect(error?.code == .storage)
    }

    @Test func descriptionsNeverShowTokens() {
        let texts = [
            "\(grant)", String(reflecting: grant.user), "\(grant.user!)",
            "\(AuthorizeResult(accessToken: "secret-access-token", expiresAt: nil, grantedScopes: [.profile], clientID: "a", redirectURI: nil, user: nil, authorizationCode: "secret-code", codeVerifier: "secret-verifier"))",
        ]
        for text in texts {
            #expect(!text.contains("secret-"), "\(text)")
        }
        #expect(!"\(grant.user!)".contains("ann@example.com"))
    }

    @Test func inMemoryStoresAreSeparate() throws {
        let first = InMemoryTokenStore()
        let second = InMemoryTokenStore()
        try first.save(grant, for: key)
        #expect(try first.grant(for: key) == grant)
        #expect(try second.grant(for: key) == nil)
        #expect(first.coordinationKey != second.coordinationKey)
    }
}
