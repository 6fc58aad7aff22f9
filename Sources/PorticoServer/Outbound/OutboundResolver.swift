#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Name resolution for the provider's outbound requests, with the system resolver
/// (`getaddrinfo`), so that what is checked (``OutboundAddressPolicy``) is exactly the socket
/// address that is then connected to.
enum OutboundResolver {
    /// One TCP address a host resolved to.
    struct Address: @unchecked Sendable {
        /// The socket address, ready for `connect`.
        let storage: sockaddr_storage
        /// How many bytes of ``storage`` are the address.
        let length: socklen_t
        /// `AF_INET` or `AF_INET6`.
        let family: Int32
        /// The numeric address (`192.0.2.1`, `2001:db8::1`), for checks and messages.
        let text: String
    }

    /// Why resolving failed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The TCP addresses of `host` at `port`, in the resolver's order; throws if it has none.
    /// Blocks while the resolver works: call it from a thread that may wait.
    static func resolve(_ host: String, port: Int) throws -> [Address] {
        try lookUp(host, port: port, flags: 0)
    }

    /// The numeric address `host` spells, as inet_ntop writes it (so `0x7f.1` is `127.0.0.1`),
    /// or nil if it is a name rather than an address.
    static func numericAddress(_ host: String) -> String? {
        (try? lookUp(host, port: 0, flags: AI_NUMERICHOST))?.first?.text
    }

    /// The 16 bytes of an IPv6 address in text, or nil.
    static func ipv6Bytes(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: address) { Array($0) }
    }

    private static func lookUp(_ host: String, port: Int, flags: Int32) throws -> [Address] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = flags | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw Failure(description: "\(host) did not resolve: \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var addresses: [Address] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry?.pointee {
            entry = current.ai_next
            guard let socketAddress = current.ai_addr,
                current.ai_family == AF_INET || current.ai_family == AF_INET6,
                Int(current.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size
            else { continue }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { target in
                target.copyMemory(
                    from: UnsafeRawBufferPointer(start: socketAddress, count: Int(current.ai_addrlen)))
            }
            addresses.append(
                Address(
                    storage: storage, length: current.ai_addrlen, family: current.ai_family,
                    text: text(of: storage, family: current.ai_family)))
        }
        guard !addresses.isEmpty else { throw Failure(description: "\(host) has no IPv4 or IPv6 address") }
        return addresses
    }

    private static func text(of storage: sockaddr_storage, family: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if family == AF_INET {
            var address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self) }.sin_addr
            _ = inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count))
        } else {
            var address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in6.self) }.sin6_addr
            _ = inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count))
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
