import PorticoHTTP

/// Which network addresses the provider may send its own requests to: the URLs that app
/// developers register and the provider then fetches or posts to (back-channel logout URIs,
/// Shared Signals push endpoints, client metadata documents, `jwks_uri`).
///
/// Those requests come from inside the platform's network, so an app could otherwise aim them at
/// what only that network reaches: a cloud metadata service (169.254.169.254), an admin
/// interface on a private address, a database port on loopback. Refused are private,
/// shared-carrier, link-local, unspecified, multicast and reserved addresses, in IPv4 and IPv6
/// (IPv4 embedded in IPv6 is judged as IPv4); loopback is refused unless ``allowsLoopback``,
/// which is for tests and local development (`portico serve --allow-loopback-callbacks`), whose
/// app backends run on the same machine.
///
/// Checked twice: at registration on what the URL names (``refusal(forHost:)``: an address
/// literal, or a loopback name), and at each request on every address the host resolves to
/// (``refusal(forAddress:)``), right before connecting to that same address, so a name that
/// resolves elsewhere later (DNS rebinding) gains nothing.
public struct OutboundAddressPolicy: Sendable {
    /// Whether loopback addresses are allowed (tests and local development only).
    public var allowsLoopback: Bool

    /// The `serve` option that allows loopback, named when loopback is refused.
    public var loopbackOption: String

    /// The policy of a production server, or with loopback allowed (by `loopbackOption`).
    public init(allowsLoopback: Bool = false, loopbackOption: String = "--allow-loopback-callbacks") {
        self.allowsLoopback = allowsLoopback
        self.loopbackOption = loopbackOption
    }

    /// The loopback networks.
    private static let loopback = ["127.0.0.0/8", "::1/128"].compactMap(IPAddressRange.init)

    /// Networks no outbound request may reach: RFC 6890's special-purpose blocks that are not
    /// globally reachable (and multicast, which TCP cannot use anyway).
    private static let nonPublic = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
        "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
        "224.0.0.0/4", "240.0.0.0/4", "::/128", "100::/64", "2001:db8::/32", "fc00::/7", "fe80::/10", "fec0::/10",
        "ff00::/8",
    ].compactMap(IPAddressRange.init)

    /// Why a request may not go to the numeric address `address` (IPv4 or IPv6 text), or nil if
    /// it may.
    public func refusal(forAddress address: String) -> String? {
        let judged = Self.embeddedIPv4(in: address) ?? address
        if Self.loopback.contains(where: { $0.contains(judged) }) {
            return allowsLoopback
                ? nil : "\(address) is a loopback address (allowed only with \(loopbackOption))"
        }
        if Self.nonPublic.contains(where: { $0.contains(judged) }) {
            return "\(address) is a private, link-local or reserved address"
        }
        return nil
    }

    /// Why a URL naming `host` may not be registered, or nil if it may: a numeric host is
    /// judged as an address (in every spelling the system resolver accepts, such as
    /// `2130706433` or `0x7f.1` for 127.0.0.1), and `localhost` and its subdomains as loopback.
    /// Other names are not resolved here; each request checks what they resolve to then.
    public func refusal(forHost host: String) -> String? {
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") {
            return allowsLoopback
                ? nil : "\(host) is a loopback name (allowed only with \(loopbackOption))"
        }
        guard let address = OutboundResolver.numericAddress(name) else { return nil }
        return refusal(forAddress: address)
    }

    /// The IPv4 address that an IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`) or
    /// 6to4 (`2002:AABB:CCDD::`) address carries, as IPv4-mapped text; nil for any other.
    /// (IPv4-mapped addresses are IPv4 already to ``IPAddressRange``.)
    private static func embeddedIPv4(in address: String) -> String? {
        guard address.contains(":"), let bytes = OutboundResolver.ipv6Bytes(address) else { return nil }
        let ipv4: ArraySlice<UInt8>
        if bytes.prefix(12).allSatisfy({ $0 == 0 }) && bytes.suffix(4) != [0, 0, 0, 0]
            && bytes.suffix(4) != [0, 0, 0, 1]
        {
            ipv4 = bytes.suffix(4)
        } else if bytes.prefix(12) == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] {
            ipv4 = bytes.suffix(4)
        } else if bytes.prefix(2) == [0x20, 0x02] {
            ipv4 = bytes[2..<6]
        } else {
            return nil
        }
        return ipv4.map(String.init).joined(separator: ".")
    }
}
