import Foundation

/// The part of a client address that throttles count under.
///
/// An IPv4 address is one client. An IPv6 client usually holds a whole /64 (SLAAC, privacy
/// addresses, a /64 per subscriber), so counting per address would give it 2^64 fresh
/// buckets; per-address limits therefore count the /64 (as Cloudflare and Okta do). An
/// IPv4-mapped IPv6 address counts as its IPv4 address.
enum ThrottleAddress {
    /// `203.0.113.7` → itself; `2001:db8:1:2:a:b:c:d` → `2001:db8:1:2::/64`; anything else
    /// (empty, not an address) as it is.
    static func bucket(_ address: String) -> String {
        var ipv6 = in6_addr()
        guard address.contains(":"), inet_pton(AF_INET6, address, &ipv6) == 1 else { return address }
        let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
        if bytes.prefix(10).allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map {
            String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }
}
