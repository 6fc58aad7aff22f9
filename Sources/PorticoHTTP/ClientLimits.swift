import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The per-client cap (``ServerConfiguration/maxConnectionsPerClient``), kept here instead of by
/// libmicrohttpd's `MHD_OPTION_PER_IP_CONNECTION_LIMIT`, which counts every TCP peer and cannot
/// exempt any.
///
/// A direct peer's first `limit` connections are served. The next ones, up to
/// `waitingLimit` more, are accepted but *wait*: a request on a waiting connection is held,
/// costing nothing, until one of the peer's served connections closes (the oldest waiting one
/// then takes its place) or the hold ends, when it gets 503 with `Retry-After` on a connection
/// kept open. Closing them at once instead, as libmicrohttpd's option does, makes a flood
/// churn: the client reconnects at once, and accepting and closing thousands of connections a
/// second costs more than serving. Only past `limit + waitingLimit` are connections closed.
///
/// Behind a reverse proxy every connection comes from the proxy, so a per-peer cap on it
/// refuses the proxy's upstream connections in a burst, and the proxy turns each refusal into
/// a 502 for some client. So connections from a trusted proxy (``ServerConfiguration/trustedProxies``)
/// are not counted at all (the global `maxConnections` still bounds them), and the same limit
/// applies instead to the requests in flight for each client the proxy names: past it, that
/// client's next request gets 503 with `Retry-After` (an answer the proxy passes on, on a
/// connection kept open), while other clients behind the same proxy are served.
///
/// Connections are checked in the accept policy and counted in the connection notices, so a
/// connection libmicrohttpd drops before it is set up is never counted; accepts racing on
/// different epoll threads may let a client hold one connection per thread more than the cap.
final class ClientLimits: Sendable {
    /// The most connections (direct peers) or requests in flight (clients behind a proxy) per
    /// client.
    let limit: Int
    /// The most connections past `limit` a direct peer may keep waiting.
    let waitingLimit: Int
    private let proxies: [IPAddressRange]
    /// Open connections per direct peer address (16 bytes, IPv4 mapped into IPv6).
    private let peers = Mutex<[[UInt8]: Peer]>([:])
    /// How many connections wait, over every peer: while none do (nearly always), a request
    /// learns that without the lock.
    private let waitingCount = Atomic<Int>(0)

    /// One direct peer's connections: how many are served, and the waiting ones, oldest first.
    private struct Peer {
        var served = 0
        var waiting: [UInt] = []

        var total: Int { served + waiting.count }
    }
    /// Requests in flight per client a proxy named.
    private let requests = Mutex<[String: Int]>([:])

    /// Limits of `limit` per client, plus `waitingLimit` waiting connections per direct peer,
    /// with `proxies` exempt from the connection count; nil when `limit` is 0 or less (no cap).
    init?(limit: Int, waitingLimit: Int = 0, proxies: [IPAddressRange]) {
        guard limit > 0 else { return nil }
        self.limit = limit
        self.waitingLimit = max(0, waitingLimit)
        self.proxies = proxies
    }

    // MARK: - Connections

    /// Whether a new connection from `address` may be accepted (accept-policy callback): one
    /// past the served and the waiting connections is closed.
    func admits(_ address: UnsafePointer<sockaddr>?) -> Bool {
        guard let key = counted(address) else { return true }
        return peers.withLock { ($0[key]?.total ?? 0) < limit + waitingLimit }
    }

    /// `connection` from `address` was set up (connection notice): served if its peer has a
    /// slot, else waiting.
    func opened(_ connection: OpaquePointer, from address: UnsafePointer<sockaddr>?) {
        guard let key = counted(address) else { return }
        peers.withLock { peers in
            var peer = peers[key] ?? Peer()
            if peer.served < limit {
                peer.served += 1
            } else {
                peer.waiting.append(UInt(bitPattern: connection))
                waitingCount.wrappingAdd(1, ordering: .relaxed)
            }
            peers[key] = peer
        }
    }

    /// `connection` from `address` closed (connection notice; libmicrohttpd sends one for every
    /// connection it announced as started). When a served one closes, the peer's oldest waiting
    /// connection is served instead and returned, so that a request held on it can go on.
    func closed(_ connection: OpaquePointer, from address: UnsafePointer<sockaddr>?) -> OpaquePointer? {
        guard let key = counted(address) else { return nil }
        return peers.withLock { peers -> OpaquePointer? in
            guard var peer = peers[key] else { return nil }
            var promoted: OpaquePointer?
            if let index = peer.waiting.firstIndex(of: UInt(bitPattern: connection)) {
                peer.waiting.remove(at: index)
                waitingCount.wrappingSubtract(1, ordering: .relaxed)
            } else if !peer.waiting.isEmpty {
                promoted = OpaquePointer(bitPattern: peer.waiting.removeFirst())
                waitingCount.wrappingSubtract(1, ordering: .relaxed)
            } else {
                peer.served -= 1
            }
            peers[key] = peer.total > 0 ? peer : nil
            return promoted
        }
    }

    /// Whether `connection` from `address` is waiting for one of its peer's slots.
    func isWaiting(_ connection: OpaquePointer, from address: UnsafePointer<sockaddr>?) -> Bool {
        guard waitingCount.load(ordering: .relaxed) > 0, let key = counted(address) else { return false }
        return peers.withLock { $0[key]?.waiting.contains(UInt(bitPattern: connection)) ?? false }
    }

    /// Whether a connection from `address` counts (a direct peer); its key if so.
    private func counted(_ address: UnsafePointer<sockaddr>?) -> [UInt8]? {
        guard let key = Self.key(of: address) else { return nil }
        return isProxy(key) ? nil : key
    }

    /// Whether the peer at `address` is a trusted proxy, whose requests count per client.
    func isProxy(_ address: UnsafePointer<sockaddr>?) -> Bool {
        guard !proxies.isEmpty, let key = Self.key(of: address) else { return false }
        return isProxy(key)
    }

    private func isProxy(_ key: [UInt8]) -> Bool {
        proxies.contains { $0.contains(bytes: key) }
    }

    /// The 16 bytes of an IP socket address, IPv4 mapped into IPv6 as ``IPAddressRange`` keeps
    /// them; nil for other families.
    static func key(of address: UnsafePointer<sockaddr>?) -> [UInt8]? {
        guard let address else { return nil }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF]
                    + withUnsafeBytes(of: ipv4.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                withUnsafeBytes(of: ipv6.pointee.sin6_addr) { Array($0) }
            }
        default:
            return nil
        }
    }

    // MARK: - Requests behind a proxy

    /// Counts a request for `client` and says whether it may be answered; a refused one is not
    /// counted, so only a `true` is balanced by ``endRequest(from:)``.
    func beginRequest(from client: String) -> Bool {
        requests.withLock { counts in
            let count = counts[client] ?? 0
            guard count < limit else { return false }
            counts[client] = count + 1
            return true
        }
    }

    /// A request counted by ``beginRequest(from:)`` ended, however it ended.
    func endRequest(from client: String) {
        requests.withLock { counts in
            guard let count = counts[client] else { return }
            counts[client] = count > 1 ? count - 1 : nil
        }
    }
}
