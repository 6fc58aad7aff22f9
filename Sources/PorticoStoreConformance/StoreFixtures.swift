import Foundation
import PorticoStore

/// Records the store tests build on.
public enum StoreFixtures {
    /// A fixed instant (whole seconds, as the store keeps times), far from the test's real clock.
    public static let referenceTime = Date(timeIntervalSince1970: 1_800_000_000)

    /// A person (not stored), created at ``referenceTime``.
    public static func user(_ email: String = "ann@example.com", name: String = "Ann") -> UserRecord {
        UserRecord(
            email: email, name: name, postalCode: "10115", passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
            createdAt: referenceTime)
    }

    /// An app with two redirect URIs (one with a space and quotes), not stored.
    public static func client(type: ClientType = .confidential, secret: String? = "s3cret") -> Client {
        Client(
            name: "Example App", type: type, secret: type == .confidential ? secret : nil,
            redirectURIs: ["https://app.example/callback", "com.example.app:/oauth \"quoted\""],
            allowedScopes: ["openid", "profile", "postal_code"], logoURL: "https://app.example/logo.png",
            privacyURL: "https://app.example/privacy", postLogoutRedirectURIs: ["https://app.example/bye"],
            createdAt: referenceTime)
    }

    /// A user and a client stored in `store`, for entities that refer to both.
    public static func userAndClient(in store: some Store) throws -> (UserRecord, Client) {
        let user = StoreFixtures.user()
        let client = StoreFixtures.client()
        try store.transaction { transaction in
            try transaction.insert(user)
            try transaction.insert(client)
        }
        return (user, client)
    }

    /// A code for `user` and `client` (not stored), valid for a minute by default.
    public static func code(
        _ code: String, user: UserRecord, client: Client,
        expiresAt: Date = StoreFixtures.referenceTime.addingTimeInterval(60)
    ) -> AuthorizationCode {
        AuthorizationCode(
            code: code, clientID: client.id, userID: user.id, redirectURI: "https://app.example/callback",
            scopes: ["openid", "profile"], codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
            nonce: "n-0S6_WzA2Mj", authTime: referenceTime, createdAt: referenceTime, expiresAt: expiresAt)
    }
}

/// A thread-safe list that concurrent test threads append to.
public final class LockedList<Element>: @unchecked Sendable {
    /// An empty list.
    public init() {}

    // Safe: `elements` is only touched while `lock` is held.
    private let lock = NSLock()
    private var elements: [Element] = []

    /// Adds `element` at the end.
    public func append(_ element: Element) {
        lock.lock()
        elements.append(element)
        lock.unlock()
    }

    /// Adds `element` at the end and says how many elements equal to it the list then holds,
    /// in one step (so that racers each get a number of their own).
    public func appendCounting(_ element: Element) -> Int where Element: Equatable {
        lock.lock()
        defer { lock.unlock() }
        elements.append(element)
        return elements.count { $0 == element }
    }

    /// The elements appended so far, in order.
    public var all: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return elements
    }
}

/// Runs `body(index)` on `count` threads at once and waits (bounded) for all of them.
/// Returns false if they did not finish in time.
public func runOnThreads(_ count: Int, timeout: TimeInterval = 120, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
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

/// The instant the fixtures are dated at.
let referenceTime = StoreFixtures.referenceTime
