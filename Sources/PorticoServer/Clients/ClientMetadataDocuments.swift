import Foundation
import PorticoCrypto
import PorticoStore
import Synchronization

/// Clients whose `client_id` is the https URL of a JSON document describing them (OAuth Client
/// ID Metadata Document, draft-ietf-oauth-client-id-metadata-document; the MCP authorization
/// specification's way for an agent to use a server it has never met).
///
/// The document is fetched through ``OutboundHTTPClient`` (https only, addresses checked and
/// connected to as checked, bounded time) to at most ``maximumBytes``, and read with the same
/// metadata rules as dynamic registration (``ClientMetadata``, ``ClientRegistration``): its
/// `client_id` must be the URL exactly, it names no secret, and the client is public
/// (`token_endpoint_auth_method` `none`, or `private_key_jwt` with its `jwks`).
///
/// Why a row in the clients table, keyed by the URL, made on first use and refreshed from each
/// fetch: everything else (consent, codes, tokens, `portico client suspend | verify`, the
/// unverified-app cap) then works as for any client. A new row is unverified; the operator's
/// verification and suspension survive refreshes. A document is kept for what its
/// `Cache-Control` says (``DocumentCacheLifetime``); after that, the next use fetches it again, and
/// a failed fetch refuses the client rather than trusting a row it can no longer confirm.
final class ClientMetadataDocuments: Sendable {
    /// Why a document cannot make a client; ``reason`` is one line for the app's developer.
    struct Failure: Error, Equatable {
        let reason: String
    }

    /// The largest document accepted.
    static let maximumBytes = 5 * 1024

    private let store: any Store
    private let fetcher: OutboundHTTPClient
    private let allowsLoopbackCallbacks: Bool
    private let clients: ClientCache
    /// When each URL's document must be fetched again.
    private let freshUntil = Mutex<[String: ContinuousClock.Instant]>([:])
    /// Fetches that failed lately, with why, until when.
    private let failures = Mutex<[String: (until: ContinuousClock.Instant, reason: String)]>([:])
    /// Most URLs remembered at once.
    private let capacity = 10_000
    /// How long a failed fetch is answered from memory.
    static let failureMemory: Duration = .seconds(5)

    /// Documents fetched with `fetcher`, clients kept in `store`; `clients` forgets a client
    /// whose row a fetch changed.
    init(store: any Store, fetcher: OutboundHTTPClient, allowsLoopbackCallbacks: Bool, clients: ClientCache) {
        self.store = store
        self.fetcher = fetcher
        self.allowsLoopbackCallbacks = allowsLoopbackCallbacks
        self.clients = clients
    }

    /// Whether `clientID` is meant as a document's URL rather than an id the provider issued
    /// (which never holds "://").
    static func isDocumentURL(_ clientID: String) -> Bool {
        let lowered = clientID.prefix(8).lowercased()
        return lowered.hasPrefix("https://") || lowered.hasPrefix("http://")
    }

    /// Makes sure the client row of the document at `clientID` exists and agrees with a fresh
    /// enough copy of the document, fetching it when the kept copy has expired.
    ///
    /// - Parameter fetchingNew: whether a document whose client has no row yet may be fetched.
    ///   The back-channel endpoints pass false: a client's first use is at the authorization
    ///   endpoint, so a token request naming a URL never seen costs no fetch. (The fetches that
    ///   remain run on the worker pool: the back-channel endpoints hand such requests over,
    ///   ``RemoteDocumentRequests``.)
    ///
    /// Blocks while fetching (at most the fetcher's timeout). A failure is remembered for
    /// ``failureMemory``, so a document server that stalls or fails is not asked again and
    /// again meanwhile.
    func refresh(_ clientID: String, fetchingNew: Bool = true) throws(Failure) {
        let now = ContinuousClock.now
        if let until = freshUntil.withLock({ $0[clientID] }), now < until { return }
        if let failure = failures.withLock({ $0[clientID] }), now < failure.until {
            throw Failure(reason: failure.reason)
        }
        let url = try Self.checkedURL(clientID)
        if !fetchingNew {
            let known: Bool
            do {
                known = try store.read { try $0.client(id: clientID) } != nil
            } catch {
                throw Failure(reason: "its client could not be read (\(error))")
            }
            guard known else {
                throw Failure(reason: "it has not been used at the authorization endpoint yet")
            }
        }
        do {
            try fetch(clientID, url: url, now: now)
        } catch {
            failures.withLock { entries in
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
                entries[clientID] = (now + Self.failureMemory, error.reason)
            }
            throw error
        }
        failures.withLock { _ = $0.removeValue(forKey: clientID) }
    }

    private func fetch(_ clientID: String, url: URL, now: ContinuousClock.Instant) throws(Failure) {
        let exchange = fetcher.getDocument(url, maximumBytes: Self.maximumBytes)
        let lifetime: DocumentCacheLifetime
        let client: Client
        switch exchange.outcome {
        case .refused(let reason), .failed(let reason):
            forget(clientID)
            throw Failure(reason: "its client metadata document could not be fetched: \(reason)")
        case .status(let status):
            guard (200..<300).contains(status) else {
                forget(clientID)
                throw Failure(reason: "fetching its client metadata document answered HTTP \(status)")
            }
            lifetime = DocumentCacheLifetime(cacheControl: exchange.headers["cache-control"])
            do {
                client = try self.client(from: exchange.body, url: clientID)
            } catch {
                forget(clientID)
                throw error
            }
        }
        do {
            try store(client)
        } catch {
            throw Failure(reason: "its client could not be stored (\(error))")
        }
        clients.forget(id: clientID)
        guard lifetime.duration > .zero else {
            forget(clientID)
            return
        }
        freshUntil.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[clientID] = now + lifetime.duration
        }
    }

    /// Forgets the kept copy of `clientID`'s document, so its next use fetches it.
    func forget(_ clientID: String) {
        freshUntil.withLock { _ = $0.removeValue(forKey: clientID) }
    }

    /// The URL, when it is one a client ID may be (draft §3): https, a host, a path, no
    /// fragment, no user or password, no dot segments.
    static func checkedURL(_ clientID: String) throws(Failure) -> URL {
        guard let components = URLComponents(string: clientID), let url = URL(string: clientID) else {
            throw Failure(reason: "its client_id is not a URL")
        }
        guard components.scheme == "https" else { throw Failure(reason: "its client_id URL must use https") }
        guard let host = components.host, !host.isEmpty else { throw Failure(reason: "its client_id URL has no host") }
        guard components.user == nil, components.password == nil else {
            throw Failure(reason: "its client_id URL must not carry a user name or password")
        }
        guard components.fragment == nil else { throw Failure(reason: "its client_id URL must not have a fragment") }
        let segments = components.path.split(separator: "/", omittingEmptySubsequences: false)
        guard components.path.count > 1, !segments.contains(where: { $0 == "." || $0 == ".." }) else {
            throw Failure(reason: "its client_id URL needs a path without . or .. segments")
        }
        return url
    }

    /// The client `body` describes, checked as a registration is.
    private func client(from body: [UInt8], url: String) throws(Failure) -> Client {
        guard let object = JSONValue(parsing: body)?.objectValue else {
            throw Failure(reason: "its client metadata document is not a JSON object")
        }
        guard object["client_id"]?.stringValue == url else {
            throw Failure(reason: "its client metadata document's client_id is not the document's URL")
        }
        if object["client_secret"] != nil || object["client_secret_expires_at"] != nil {
            throw Failure(reason: "its client metadata document must not name a client secret")
        }
        if let method = object["token_endpoint_auth_method"]?.stringValue,
            method != "none" && method != "private_key_jwt"
        {
            throw Failure(
                reason:
                    "its client metadata document asks for \(method); such a client has no secret (use none or private_key_jwt)"
            )
        }
        guard let redirectURIs = object["redirect_uris"]?.arrayValue, !redirectURIs.isEmpty else {
            throw Failure(reason: "its client metadata document has no redirect_uris")
        }
        let metadata: ClientMetadata
        do {
            metadata = try ClientMetadata(
                object: object, defaultAuthMethod: "none", allowsLoopbackCallbacks: allowsLoopbackCallbacks)
        } catch {
            throw Failure(reason: "its client metadata document is not acceptable: \(error.description)")
        }
        do {
            return try metadata.registration.validatedClient(id: url, secret: nil, store: store)
        } catch {
            let message: String
            if case .invalid(let text) = error { message = text } else { message = "\(error)" }
            throw Failure(reason: "its client metadata document is not acceptable: \(message)")
        }
    }

    /// Inserts the client, or updates the stored one with what the document says now, keeping
    /// what the operator decided (verified, suspended) and when it was first seen.
    private func store(_ described: Client) throws {
        do {
            try upsert(described)
        } catch StoreError.duplicate {
            // Another request (or node) made the row first: update it instead.
            try upsert(described)
        }
    }

    private func upsert(_ described: Client) throws {
        try store.transaction { transaction in
            guard let stored = try transaction.client(id: described.id) else {
                var client = described
                client.isVerified = false
                try transaction.insert(client)
                try transaction.append(
                    AuditEvent(actor: "metadata-document", action: "client.add", subject: client.id, details: "{}"))
                return
            }
            var client = described
            client.isVerified = stored.isVerified
            client.suspendedAt = stored.suspendedAt
            client.createdAt = stored.createdAt
            if client != stored { try transaction.update(client) }
        }
    }
}
