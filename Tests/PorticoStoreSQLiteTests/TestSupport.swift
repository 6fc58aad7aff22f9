import Foundation
import PorticoStore
import PorticoStoreSQLite

/// A fresh directory under the system's temporary directory, removed when released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "portico-store-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// A database path inside the directory (in a subdirectory, to exercise its creation).
    func databasePath(_ name: String = "portico.db") -> String {
        url.appendingPathComponent("data/\(name)").path
    }
}

/// Runs `body` with a new store on a real file in a temporary directory, then closes it and
/// removes the directory.
func withStore<T>(
    strategy: SQLiteConnectionStrategy = .standard, _ body: (SQLiteStore) throws -> T
) throws -> T {
    let directory = try TemporaryDirectory()
    let store = try SQLiteStore(path: directory.databasePath(), strategy: strategy)
    defer { store.close() }
    return try body(store)
}

/// A fixed instant (whole seconds, as the store keeps times), far from the test's real clock.
let referenceTime = Date(timeIntervalSince1970: 1_800_000_000)

enum Fixtures {
    static func user(_ email: String = "ann@example.com", name: String = "Ann") -> UserRecord {
        UserRecord(
            email: email, name: name, postalCode: "10115", passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
            createdAt: referenceTime)
    }

    static func client(type: ClientType = .confidential, secret: String? = "s3cret") -> Client {
        Client(
            name: "Example App", type: type, secret: type == .confidential ? secret : nil,
            redirectURIs: ["https://app.example/callback", "com.example.app:/oauth \"quoted\""],
            allowedScopes: ["openid", "profile", "postal_code"], logoURL: "https://app.example/logo.png",
            privacyURL: "https://app.example/privacy", postLogoutRedirectURIs: ["https://app.example/bye"],
            createdAt: referenceTime)
    }

    /// A user and a client stored in `store`, for entities that refer to both.
    static func userAndClient(in store: some Store) throws -> (UserRecord, Client) {
        let user = Fixtures.user()
        let client = Fixtures.client()
        try store.transaction { transaction in
            try transaction.insert(user)
            try transaction.insert(client)
        }
        return (user, client)
    }

    static func code(
        _ code: String, user: UserRecord, client: Client, expiresAt: Date = referenceTime.addingTimeInterval(60)
    ) -> AuthorizationCode {
        AuthorizationCode(
            code: code, clientID: client.id, userID: user.id, redirectURI: "https://app.example/callback",
            scopes: ["openid", "profile"], codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
            nonce: "n-0S6_WzA2Mj", authTime: referenceTime, createdAt: referenceTime, expiresAt: expiresAt)
    }
}

/// A thread-safe list that concurrent test threads append to.
final class LockedList<Element>: @unchecked Sendable {
    // Safe: `elements` is only touched while `lock` is held.
    private let lock = NSLock()
    private var elements: [Element] = []

    func append(_ element: Element) {
        lock.lock()
        elements.append(element)
        lock.unlock()
    }

    var all: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return elements
    }
}

/// Runs `body(index)` on `count` threads at once and waits (bounded) for all of them.
/// Returns false if they did not finish in time.
func runOnThreads(_ count: Int, timeout: TimeInterval = 120, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.start()
    }
    return group.wait(timeout: .now() + timeout) == .success
}

/// Opens the store of a `sqlite:` URL as `portico` does (the command picks the backend).
func openStore(url: String) throws -> any Store {
    switch try DatabaseURL(parsing: url) {
    case .sqlite(let path): return try SQLiteStore(path: path)
    case .sqliteInMemory: return try SQLiteStore(path: ":memory:")
    case .postgres: throw StoreError.unsupportedURL(url)
    }
}
