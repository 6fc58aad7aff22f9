import Foundation
import PorticoCrypto
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The host's own people (their `mcUid`s), their sign-in sessions and their account links, in
/// one JSON file under the data directory.
///
/// An example keeps it simple: the whole table is rewritten atomically (a temporary file renamed
/// over the old one, `0600`) on every change, under one lock. Session tokens are stored as
/// SHA-256 hashes only, and the platform's access token only until a logout token says to forget it.
public final class HostUserTable: Sendable {
    /// One person of the host app.
    public struct User: Codable, Sendable, Hashable {
        /// The host's id of the person (mPaaS's `mcUid`).
        public var hostUserID: String
        /// The name they signed in to the host with.
        public var name: String
        /// SHA-256 (base64url) of each session token handed to their host app.
        public var sessionHashes: [String]
        /// Their link to a platform account, once linked.
        public var link: Link?
    }

    /// A person's link to their platform account.
    public struct Link: Codable, Sendable, Hashable {
        /// The provider's id of the link, for `DELETE /oauth/account-links/{id}`.
        public var linkID: String
        /// The person's platform user id.
        public var platformUserID: String
        /// The access token the host was issued for them; nil once a logout token said so.
        public var accessToken: String?
        /// When ``accessToken`` expires.
        public var expiresAt: Date?
    }

    /// A back-channel logout token the backend accepted.
    public struct ReceivedLogout: Codable, Sendable, Hashable {
        /// The token's `jti`.
        public var jwtID: String
        /// Its `sub`, when it had one.
        public var subject: String?
        /// Its `sid`, when it had one.
        public var sessionID: String?
        /// When it arrived.
        public var receivedAt: Date
    }

    private struct Contents: Codable {
        var users: [User] = []
        var logouts: [ReceivedLogout] = []
    }

    /// The JSON file.
    public let file: URL
    private let contents: Mutex<Contents>

    /// The table in `directory/host-users.json`, read now (created on first write).
    public init(directory: URL) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        file = directory.appendingPathComponent("host-users.json")
        if let data = try? Data(contentsOf: file) {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            contents = Mutex(try decoder.decode(Contents.self, from: data))
        } else {
            contents = Mutex(Contents())
        }
    }

    /// The person with `hostUserID`, if any.
    public func user(_ hostUserID: String) -> User? {
        contents.withLock { $0.users.first { $0.hostUserID == hostUserID } }
    }

    /// Every person.
    public var users: [User] { contents.withLock { $0.users } }

    /// The logout tokens received so far, oldest first.
    public var logouts: [ReceivedLogout] { contents.withLock { $0.logouts } }

    /// Signs `name` in (making the person on first sign-in) and returns them with a new session token.
    public func signIn(name: String) throws -> (user: User, session: String) {
        let session = SecureRandom.token()
        let user = try change { contents in
            var index = contents.users.firstIndex { $0.name == name }
            if index == nil {
                let id = "mc_" + Base64URL.encode(SecureRandom.bytes(count: 9))
                contents.users.append(User(hostUserID: id, name: name, sessionHashes: [], link: nil))
                index = contents.users.count - 1
            }
            guard let index else { return contents.users[0] }
            contents.users[index].sessionHashes.append(Self.hash(session))
            return contents.users[index]
        }
        return (user, session)
    }

    /// The person a session token belongs to, compared by hash.
    public func user(session: String) -> User? {
        let hash = Self.hash(session)
        return contents.withLock { contents in
            contents.users.first { user in user.sessionHashes.contains { ConstantTime.equals($0, hash) } }
        }
    }

    /// Sets (or clears) `hostUserID`'s link.
    public func setLink(_ link: Link?, for hostUserID: String) throws {
        try change { contents in
            for index in contents.users.indices where contents.users[index].hostUserID == hostUserID {
                contents.users[index].link = link
            }
        }
    }

    /// Records a logout token and forgets the access token of every person linked to `subject`;
    /// the people whose token was forgotten. A repeated `jti` (delivery is at least once) is
    /// recorded once.
    @discardableResult
    public func receiveLogout(_ logout: ReceivedLogout) throws -> [String] {
        try change { contents in
            if !contents.logouts.contains(where: { $0.jwtID == logout.jwtID }) { contents.logouts.append(logout) }
            var forgotten: [String] = []
            guard let subject = logout.subject else { return forgotten }
            for index in contents.users.indices where contents.users[index].link?.platformUserID == subject {
                contents.users[index].link?.accessToken = nil
                contents.users[index].link?.expiresAt = nil
                forgotten.append(contents.users[index].hostUserID)
            }
            return forgotten
        }
    }

    /// Ends the host session and the mini-programs' platform state of every person linked to
    /// `subject` (a Shared Signals `session-revoked`, `account-disabled` or `account-purged`,
    /// as the account-link seed asks on logout and unbind): their host session tokens and the
    /// platform access token the auth model carried are forgotten, so the app must sign in to
    /// the host again and the mini-programs get no model until the person links again. Records
    /// the SET's `jti` once, with the logout tokens (delivery is at least once). Returns the
    /// people it signed out.
    @discardableResult
    public func endLinkedSessions(subject: String, jwtID: String, receivedAt: Date) throws -> [String] {
        try change { contents in
            if !contents.logouts.contains(where: { $0.jwtID == jwtID }) {
                contents.logouts.append(
                    ReceivedLogout(jwtID: jwtID, subject: subject, sessionID: nil, receivedAt: receivedAt))
            }
            var ended: [String] = []
            for index in contents.users.indices where contents.users[index].link?.platformUserID == subject {
                contents.users[index].sessionHashes = []
                contents.users[index].link?.accessToken = nil
                contents.users[index].link?.expiresAt = nil
                ended.append(contents.users[index].hostUserID)
            }
            return ended
        }
    }

    private func change<T>(_ body: (inout Contents) -> T) throws -> T {
        try contents.withLock { contents in
            var copy = contents
            let result = body(&copy)
            try write(copy)
            contents = copy
            return result
        }
    }

    private func write(_ contents: Contents) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".host-users.\(UUID().uuidString)")
        let data = try encoder.encode(contents)
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600])
        else { throw HostBackendError(.internalServerError, "server_error", "cannot write \(temporary.path)") }
        guard rename(temporary.path, file.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw HostBackendError(.internalServerError, "server_error", "cannot replace \(file.path)")
        }
    }

    private static func hash(_ token: String) -> String {
        Base64URL.encode(Digest.sha256.hash(token))
    }
}
