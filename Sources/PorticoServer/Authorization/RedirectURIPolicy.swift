import PorticoStore

/// Decides which redirect URI an authorization request may use (RFC 9700 §2.1, RFC 8252).
///
/// URIs match byte for byte (never by Swift's `String ==`, which is Unicode canonical
/// equivalence: `K` would match U+212A KELVIN SIGN), and the browser is sent to the registered
/// string. One exception: for a public client whose registered URI is a loopback IP literal
/// (`http://127.0.0.1/…`, `http://[::1]/…`), the native app may name any port, since it listens
/// on whatever port the OS gives it (RFC 8252 §7.3); not for `localhost`, which a hosts file or
/// resolver can point elsewhere (RFC 8252 §8.3), and not for confidential clients. Custom
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
            if let registered = client.redirectURIs.first(where: { sameBytes($0, requested) }) {
                uri = registered
            } else if client.type == .public,
                client.redirectURIs.contains(where: { matchesOnAnotherPort(requested, registered: $0) })
            {
                // Equal but for the port, byte for byte: the requested URI carries the app's port.
                uri = requested
            } else {
                throw .notRegistered
            }
        } else {
            guard client.redirectURIs.count == 1, let only = client.redirectURIs.first else { throw .missing }
            uri = only
        }
        guard isAcceptable(uri, for: client) else { throw .notAllowed }
        return uri
    }

    /// Whether two strings are the same bytes (their UTF-8), not merely canonically equivalent.
    static func sameBytes(_ left: String, _ right: String) -> Bool {
        left.utf8.elementsEqual(right.utf8)
    }

    /// Whether `requested` is the registered loopback IP-literal URI on another port.
    static func matchesOnAnotherPort(_ requested: String, registered: String) -> Bool {
        guard let registeredParts = LoopbackURI(registered), let requestedParts = LoopbackURI(requested) else {
            return false
        }
        return registeredParts.host == requestedParts.host
            && registeredParts.remainder.utf8.elementsEqual(requestedParts.remainder.utf8)
    }

    /// Whether `uri` is a URI this client may receive codes at.
    private static func isAcceptable(_ uri: String, for client: Client) -> Bool {
        // Scalars, not Characters: a "prepend" character such as U+0600 joins the `#` or `:` after
        // it into one grapheme, which a Character search would not find (found by fuzzing).
        let scalars = uri.unicodeScalars
        guard !scalars.contains("#"), let colon = scalars.firstIndex(of: ":"), colon != scalars.startIndex else {
            return false
        }
        let scheme = String(scalars[..<colon]).lowercased()
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
    /// `127.0.0.1` or `[::1]`.
    let host: String
    /// Everything after the authority: path, query.
    let remainder: Substring

    private static let loopbackHosts: Set<String> = ["127.0.0.1", "[::1]"]

    init?(_ uri: String) {
        let scalars = uri.unicodeScalars
        guard scalars.count > 7, String(scalars.prefix(7)).lowercased() == "http://" else { return nil }
        // Where the authority ends, found by scalars (see `isAcceptable`).
        let afterScheme = scalars.dropFirst(7)
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        let authority = Substring(afterScheme[..<authorityEnd])
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
        let literal = String(host)
        guard Self.loopbackHosts.contains(literal) else { return nil }
        self.host = literal
        self.remainder = Substring(afterScheme[authorityEnd...])
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
