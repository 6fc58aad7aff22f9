#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `::1/128`, or one address), for
/// naming the reverse proxies whose forwarding headers are believed.
///
/// IPv4 addresses are kept as IPv4-mapped IPv6 (`::ffff:a.b.c.d`), so that a range written
/// either way matches a peer reported either way by a dual-stack socket.
public struct IPAddressRange: Sendable, Hashable, CustomStringConvertible {
    private let network: [UInt8]
    private let prefixLength: Int
    /// The range as it was written.
    public let description: String

    /// The range `text` names, or nil when it is not an address with an optional `/prefix`
    /// that fits its family (at most 32 for IPv4, 128 for IPv6).
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let address = Self.bytes(of: String(parts[0])) else {
            return nil
        }
        let isIPv4 = Self.isMappedIPv4(address) && !parts[0].contains(":")
        let maximum = isIPv4 ? 32 : 128
        var length = maximum
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...maximum).contains(given), parts[1].allSatisfy(\.isASCII) else {
                return nil
            }
            length = given
        }
        prefixLength = isIPv4 ? length + 96 : length
        network = Self.masked(address, prefixLength)
        description = text
    }

    /// Whether the numeric address `text` lies in this range.
    public func contains(_ text: String) -> Bool {
        guard let address = Self.bytes(of: text) else { return false }
        return Self.masked(address, prefixLength) == network
    }

    /// Whether an address given as its 16 bytes (IPv4 mapped into IPv6, as ``bytes(of:)``
    /// gives) lies in this range; for socket addresses, which need no formatting then.
    func contains(bytes address: [UInt8]) -> Bool {
        address.count == 16 && Self.masked(address, prefixLength) == network
    }

    /// The 16 bytes of an IPv6 address, or of an IPv4 address mapped into IPv6; nil for text
    /// that is neither (host names are never resolved here).
    static func bytes(of text: String) -> [UInt8]? {
        var literal = text
        if literal.hasPrefix("[") && literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, literal, &ipv4) == 1 {
            return [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + withUnsafeBytes(of: ipv4) { Array($0) }
        }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, literal, &ipv6) == 1 else { return nil }
        return withUnsafeBytes(of: ipv6) { Array($0) }
    }

    /// Whether 16 bytes are an IPv4-mapped address.
    static func isMappedIPv4(_ bytes: [UInt8]) -> Bool {
        bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
    }

    private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = min(max(length - index * 8, 0), 8)
            return bits == 8 ? byte : byte & UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
        }
    }
}
