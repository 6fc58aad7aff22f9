/// The client address of a request relayed by trusted reverse proxies, from the one header
/// the operator names (``ClientAddressHeader``): `X-Forwarded-For`, `X-Real-IP` or `Forwarded`
/// (RFC 7239). The others are ignored, whatever they say, since a client can write them.
///
/// Only a peer inside one of the trusted ranges is believed, and only as far as the chain of
/// trusted hops goes: the list of addresses (the header's, then the peer) is read from the
/// right, skipping trusted proxies, and the first address that is not one is the client, as
/// nginx's `real_ip_recursive` and Keycloak's proxy settings do. Anything to its left was
/// written by the client itself and is never used, so a client cannot choose its address.
public enum ForwardedClientAddress {
    /// The address to treat as the client's: `peer` itself unless it is trusted and the request
    /// names an address before it.
    public static func resolve(
        peer: String, headers: HTTPHeaders, trusted: [IPAddressRange], header: ClientAddressHeader = .xForwardedFor
    ) -> String {
        guard !trusted.isEmpty, isTrusted(peer, trusted) else { return peer }
        let chain = forwardedChain(headers, header: header)
        guard !chain.isEmpty else { return peer }
        for address in chain.reversed() {
            // An entry that is not an address (a proxy's obfuscated name, garbage) ends the
            // chain: nothing left of it can be trusted, and the peer is the best we know.
            guard IPAddressRange.bytes(of: address) != nil else { return peer }
            if !isTrusted(address, trusted) { return address }
        }
        return chain.first ?? peer
    }

    private static func isTrusted(_ address: String, _ trusted: [IPAddressRange]) -> Bool {
        trusted.contains { $0.contains(address) }
    }

    /// The addresses the proxies recorded in `header`, leftmost first: `Forwarded`'s `for=`
    /// parameters, or the comma-separated list of the others (several lines joined in order).
    static func forwardedChain(_ headers: HTTPHeaders, header: ClientAddressHeader) -> [String] {
        let values = headers.values(for: header.rawValue)
        if header == .forwarded {
            return values.joined(separator: ",").split(separator: ",").compactMap { element in
                for pair in element.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2,
                        parts[0].trimmingSpaces().lowercased() == "for"
                    else { continue }
                    return address(fromNode: String(parts[1].trimmingSpaces()))
                }
                return "unknown"
            }
        }
        return values.joined(separator: ",").split(separator: ",").map {
            address(fromNode: String($0.trimmingSpaces()))
        }
    }

    /// A node as RFC 7239 writes it (`192.0.2.1`, `"[2001:db8::1]:443"`, `192.0.2.1:80`)
    /// reduced to the address.
    private static func address(fromNode node: String) -> String {
        var text = node
        if text.hasPrefix("\"") && text.hasSuffix("\"") && text.count >= 2 {
            text = String(text.dropFirst().dropLast())
        }
        if text.hasPrefix("[") {
            guard let end = text.firstIndex(of: "]") else { return text }
            return String(text[text.index(after: text.startIndex)..<end])
        }
        if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            return String(text[..<colon])
        }
        return text
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
