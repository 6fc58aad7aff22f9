#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Converts between socket addresses and text: the listen address from the configuration and
/// the client address each request carries.
enum SocketAddress {
    /// A parsed listen address, kept as storage big enough for IPv4 and IPv6.
    struct Listen {
        var storage = sockaddr_storage()
        var isIPv6 = false
    }

    static func listen(host: String, port: UInt16) throws(HTTPServerError) -> Listen {
        var result = Listen()
        let name = host == "localhost" ? "127.0.0.1" : host
        var ipv4 = sockaddr_in()
        if inet_pton(AF_INET, name, &ipv4.sin_addr) == 1 {
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &result.storage) { target in
                withUnsafeBytes(of: ipv4) { target.copyMemory(from: $0) }
            }
            return result
        }
        let literal = name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()) : name
        var ipv6 = sockaddr_in6()
        if inet_pton(AF_INET6, literal, &ipv6.sin6_addr) == 1 {
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &result.storage) { target in
                withUnsafeBytes(of: ipv6) { target.copyMemory(from: $0) }
            }
            result.isIPv6 = true
            return result
        }
        throw .invalidHost(host)
    }
}

/// A client's IPv4 or IPv6 address copied out of libmicrohttpd, formatted only on demand.
struct PeerAddress: Sendable {
    private var family: Int32 = 0
    private var bytes: (UInt64, UInt64) = (0, 0)

    init(_ address: UnsafePointer<sockaddr>?) {
        guard let address else { return }
        family = Int32(address.pointee.sa_family)
        switch family {
        case AF_INET:
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                bytes.0 = UInt64(ipv4.pointee.sin_addr.s_addr)
            }
        case AF_INET6:
            address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                withUnsafeMutableBytes(of: &bytes) { target in
                    withUnsafeBytes(of: ipv6.pointee.sin6_addr) { target.copyMemory(from: $0) }
                }
            }
        default:
            family = 0
        }
    }

    /// The numeric text (`127.0.0.1`, `::1`), or empty when the address is not IP.
    var text: String {
        guard family == AF_INET || family == AF_INET6 else { return "" }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        var raw = bytes
        let converted = withUnsafeBytes(of: &raw) { source in
            inet_ntop(family, source.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard converted != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
