import Foundation
import PorticoHTTP

/// Sends a browser that reached the server by another of its names (`localhost` for an issuer
/// of `127.0.0.1`, or an `--allowed-host`) to the same path at the issuer's own address.
///
/// Why: cookies belong to the host name the browser used. The demo app sets its state cookie
/// on the name in the address bar, but Portico sends the browser back to the issuer's
/// `/demo/callback`; a sign-in started at `localhost` therefore came back to `127.0.0.1`
/// without its cookie and failed the state check. Redirecting the entry pages before anything
/// is set keeps every cookie on one name.
enum IssuerHostRedirect {
    /// A redirect to `issuer` + the request's path and query when the request's `Host` is not
    /// the issuer's host and port; nil when it is (or when the request names no host).
    static func redirect(_ request: Request, issuer: String) -> Response? {
        guard let field = request.headers["Host"], let issuerURL = URL(string: issuer),
            let issuerHost = issuerURL.host
        else { return nil }
        let defaultPort = issuerURL.scheme?.lowercased() == "https" ? 443 : 80
        let issuerAuthority = authority(host: issuerHost, port: issuerURL.port ?? defaultPort)
        guard let requested = parse(field, defaultPort: defaultPort), requested != issuerAuthority else { return nil }
        let query = request.rawQuery.map { $0.isEmpty ? "" : "?" + $0 } ?? ""
        return PageLayout.redirect(to: issuer + request.path + query)
    }

    /// `host:port` lowercased, IPv6 without brackets, without a trailing dot.
    private static func authority(host: String, port: Int) -> String {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        return "\(name):\(port)"
    }

    /// The authority of a `Host` field, or nil when it cannot be read.
    private static func parse(_ field: String, defaultPort: Int) -> String? {
        let text = field.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        if text.hasPrefix("[") {
            guard let end = text.firstIndex(of: "]") else { return nil }
            let host = String(text[text.index(after: text.startIndex)..<end])
            let rest = text[text.index(after: end)...]
            guard let port = rest.isEmpty ? defaultPort : Int(rest.dropFirst()), rest.isEmpty || rest.first == ":"
            else { return nil }
            return authority(host: host, port: port)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return authority(host: text, port: defaultPort)
        case 2: return Int(parts[1]).map { authority(host: String(parts[0]), port: $0) }
        default: return authority(host: text, port: defaultPort)  // a bare IPv6 literal
        }
    }
}
