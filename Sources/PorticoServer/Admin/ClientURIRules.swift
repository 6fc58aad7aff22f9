import Foundation

/// Which URIs a client may register for redirects and links (RFC 9700 §2.1, RFC 8252 §7).
///
/// Redirect URIs are compared exactly at the authorization endpoint, so what is registered is
/// what attackers would have to hit: absolute, https, or http only on the loopback interface
/// (native apps, RFC 8252 §7.3), or a reverse-domain private-use scheme for public native apps
/// (RFC 8252 §7.1). Fragments are never allowed (RFC 6749 §3.1.2).
///
/// Public for ``checkWebURL(_:label:)`` alone: an app served beside the provider (the demo)
/// registers a privacy page only where the same rule would accept it.
public enum ClientURIRules {
    /// Hosts that http may use: the loopback interface only.
    static let loopbackHosts: Set<String> = ["127.0.0.1", "[::1]", "::1", "localhost"]

    /// Throws ``AdminError/invalid(_:)`` unless `text` is an acceptable redirect URI; custom
    /// schemes are allowed only when `allowsPrivateUseScheme` (public clients).
    static func checkRedirect(_ text: String, allowsPrivateUseScheme: Bool, label: String = "redirect URI")
        throws(AdminError)
    {
        let (scheme, components) = try parse(text, label: label)
        // Scalars, not Characters: a "prepend" character such as U+0600 joins the `#` after it
        // into one grapheme, which `String.contains("#")` would not see.
        guard !text.unicodeScalars.contains("#") else {
            throw .invalid("\(label) '\(text)' must not have a fragment (#…)")
        }
        switch scheme {
        case "https":
            try requireHost(components, text: text, label: label)
        case "http":
            try requireHost(components, text: text, label: label)
            guard isLoopback(components) else {
                throw .invalid(
                    "\(label) '\(text)' uses http on a host other than 127.0.0.1, [::1] or localhost; use https")
            }
        default:
            guard allowsPrivateUseScheme else {
                throw .invalid(
                    "\(label) '\(text)' uses the custom scheme '\(scheme)', which only --public (native) clients may use"
                )
            }
            guard scheme.contains(".") else {
                throw .invalid(
                    "\(label) '\(text)' must use a reverse-domain scheme such as com.example.app:/callback (RFC 8252)")
            }
        }
    }

    /// Throws ``AdminError/invalid(_:)`` unless `text` is a web origin (RFC 6454): https (or
    /// http on loopback), a host, an optional port, and nothing after it; returns it lowercased.
    static func checkedWebOrigin(_ text: String, label: String = "web origin") throws(AdminError) -> String {
        let (scheme, components) = try parse(text, label: label)
        guard scheme == "https" || scheme == "http" else {
            throw .invalid("\(label) '\(text)' must start with https://")
        }
        try requireHost(components, text: text, label: label)
        if scheme == "http" && !isLoopback(components) {
            throw .invalid("\(label) '\(text)' uses http on a host other than 127.0.0.1, [::1] or localhost; use https")
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil,
            components.user == nil
        else {
            throw .invalid("\(label) '\(text)' must be only a scheme, a host and a port, such as https://app.example")
        }
        var origin = "\(scheme)://\((components.host ?? "").lowercased())"
        if let port = components.port { origin += ":\(port)" }
        return origin
    }

    /// Throws ``AdminError/invalid(_:)`` unless `text` is an https URL (or http on loopback),
    /// for logos and privacy policies that the consent page links.
    public static func checkWebURL(_ text: String, label: String) throws(AdminError) {
        let (scheme, components) = try parse(text, label: label)
        try requireHost(components, text: text, label: label)
        guard scheme == "https" || (scheme == "http" && isLoopback(components)) else {
            throw .invalid("\(label) '\(text)' must be an https URL (http only for 127.0.0.1, [::1] or localhost)")
        }
    }

    /// Throws ``AdminError/invalid(_:)`` if `text`, a URL the provider itself will send to
    /// (a back-channel logout URI), names a host that `policy` refuses: a private, link-local
    /// or reserved address, or loopback without the opt-in. Only what the URL spells is judged
    /// here (no name is resolved); each request checks the addresses its host resolves to then.
    static func checkOutboundTarget(_ text: String, policy: OutboundAddressPolicy, label: String) throws(AdminError) {
        let (_, components) = try parse(text, label: label)
        guard let host = components.host, let refusal = policy.refusal(forHost: host) else { return }
        throw .invalid("\(label) '\(text)' is not reachable for the server: \(refusal)")
    }

    /// The lowercased scheme and the parsed components, or an error for anything not absolute.
    private static func parse(_ text: String, label: String) throws(AdminError) -> (String, URLComponents) {
        guard text.count <= 2000, !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
            let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme.first?.isLetter == true,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else {
            throw .invalid("\(label) '\(text)' is not an absolute URI")
        }
        return (scheme, components)
    }

    private static func requireHost(_ components: URLComponents, text: String, label: String) throws(AdminError) {
        guard let host = components.host, !host.isEmpty else { throw .invalid("\(label) '\(text)' has no host") }
        guard components.user == nil, components.password == nil else {
            throw .invalid("\(label) '\(text)' must not carry a user name or password")
        }
    }

    private static func isLoopback(_ components: URLComponents) -> Bool {
        guard let host = components.host?.lowercased() else { return false }
        return loopbackHosts.contains(host)
    }
}
