import PorticoStore

/// Decides which redirect URI an authorization request may use (RFC 9700 §2.1, RFC 8252).
///
/// URIs match by exact string comparison, with one exception: when the registered URI is a
/// loopback one (`http://127.0.0.1/…`, `http://[::1]/…`, or `http://localhost/…`), a native app
/// may name any port, since it listens on whatever port the OS gives it (RFC 8252 §7.3). Custom
/// schemes (`com.example.app:/callback`) are for native apps, so only public clients may use
/// them; URIs with a fragment are never accepted (RFC 6749 §3.1.2).
enum RedirectURIPolicy {
    /// Why a redirect URI cannot be used; each shows an error page, never a redirect.
    enum Problem: Error, Equatable {
        /// The request named none and the client has several (or none) registered.
        case missing
        /// The request's URI is not one the client registered.
        case notRegistered
        /// Registered, but of a kind this client may not use (custom scheme for a confidential
        /// client, a fragment, not a URI at all).
        case notAllowed
    }

    /// The URI to send the browser back to for `requested` (nil when the request named none).
    static func resolve(_ requested: String?, for client: Client) throws(Problem) -> String {
        let uri: String
        if let requested {
            guard client.redirectURIs.contains(where: { matches(requested, registered: $0) }) else {
                throw .notRegistered
            }
            uri = requested
        } else {
            guard client.redirectURIs.count == 1, let only = client.redirectURIs.first else { throw .missing }
            uri = only
        }
        guard isAcceptable(uri, for: client) else { throw .notAllowed }
        return uri
    }

    /// Whether `requested` matches the registered URI: exactly, or as the same loopback URI on
    /// another port.
    static func matches(_ requested: String, registered: String) -> Bool {
        if requested == registered { return true }
        guard let registeredParts = LoopbackURI(registered), let requestedParts = LoopbackURI(requested) else {
            return false
        }
        return registeredParts.host == requestedParts.host && registeredParts.remainder == requestedParts.remainder
    }

    /// Whether `uri` is a URI this client may receive codes at.
    private static func isAcceptable(_ uri: String, for client: Client) -> Bool {
        guard !uri.contains("#"), let colon = uri.firstIndex(of: ":"), colon != uri.startIndex else { return false }
        let scheme = uri[..<colon].lowercased()
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter,
            scheme.unicodeScalars.allSatisfy({
                $0.isASCIILetter || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)
            })
        else { return false }
        switch scheme {
        case "https", "http":
            return true
        case "javascript", "data", "vbscript", "file":
            return false
        default:
            return client.type == .public
        }
    }
}

/// The parts of an `http` loopback URI that must match when the port may differ.
private struct LoopbackURI {
    /// `127.0.0.1`, `[::1]` or `localhost`, lowercased.
    let host: String
    /// Everything after the authority: path, query.
    let remainder: Substring

    private static let loopbackHosts: Set<String> = ["127.0.0.1", "[::1]", "localhost"]

    init?(_ uri: String) {
        guard uri.utf8.count > 7, uri.prefix(7).lowercased() == "http://" else { return nil }
        let afterScheme = uri.dropFirst(7)
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        guard !authority.contains("@") else { return nil }
        var host = authority
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || Self.isPort(rest) else { return nil }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            guard Self.isPort(authority[colon...]) else { return nil }
        }
        let lowered = host.lowercased()
        guard Self.loopbackHosts.contains(lowered) else { return nil }
        self.host = lowered
        self.remainder = afterScheme[authorityEnd...]
    }

    /// `:` followed by one to five digits.
    private static func isPort(_ text: Substring) -> Bool {
        let digits = text.dropFirst()
        return text.first == ":" && (1...5).contains(digits.count) && digits.allSatisfy(\.isASCII)
            && digits.allSatisfy(\.isNumber)
    }
}

extension Unicode.Scalar {
    /// `A`–`Z` or `a`–`z`.
    fileprivate var isASCIILetter: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self)
    }
}
