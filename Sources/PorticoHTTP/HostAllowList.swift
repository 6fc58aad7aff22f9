/// The host names a server answers to: a request whose `Host` names another gets 421
/// Misdirected Request (RFC 9110 §15.5.20).
///
/// Why: a loopback server is reachable from any web page by DNS rebinding (a name the attacker
/// controls first resolves to its server, then to 127.0.0.1). The browser then sends the
/// attacker's name in `Host`, so refusing unknown names keeps pages and loopback-only
/// endpoints (metrics) out of reach of other origins. Ports are not compared: proxies rewrite
/// them, and the name is what rebinding changes.
public struct HostAllowList: Sendable {
    private let names: Set<String>

    /// Answers to `hosts` (names or IP literals, with or without a port, IPv6 in brackets or
    /// not), compared without case.
    public init(_ hosts: [String]) {
        names = Set(hosts.map { Self.name(of: $0) })
    }

    /// Whether a request with this `Host` field is for this server. A request without one
    /// (HTTP/1.0) is allowed: no browser sends such a request across origins.
    public func allows(host field: String?) -> Bool {
        guard let field else { return true }
        return names.contains(Self.name(of: field))
    }

    /// The host name of `Host` text: lowercased, without a port, IPv6 without brackets.
    static func name(of host: String) -> String {
        let text = host.trimmingCharacters(in: " \t").lowercased()
        if text.hasPrefix("[") {
            guard let end = text.firstIndex(of: "]") else { return text }
            return String(text[text.index(after: text.startIndex)..<end])
        }
        var name = text
        if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            name = String(text[..<colon])
        }
        return name.hasSuffix(".") ? String(name.dropLast()) : name
    }

    /// The response for a request to another host.
    public static let refusal: Response = {
        var response = Response.text(
            "Misdirected Request: this server does not answer to that host name.\n", status: .misdirectedRequest)
        response.headers["Cache-Control"] = "no-store"
        return response
    }()
}

extension HTTPStatus {
    /// 421: the request names a host this server does not answer to.
    public static let misdirectedRequest = HTTPStatus(rawValue: 421)
}

extension String {
    /// Without the given leading and trailing characters.
    fileprivate func trimmingCharacters(in set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return String(text)
    }
}
