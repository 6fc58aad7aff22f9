import PorticoHTTP

/// Whether a form post comes from one of this provider's own pages, by what the browser says
/// of its origin: `Sec-Fetch-Site` (Fetch Metadata), else `Origin`.
///
/// Why, beside the CSRF token: on `http://127.0.0.1` cookies are shared by every port, so a
/// page served by any local program can plant a CSRF cookie of its own and post a matching
/// token (login CSRF: the victim ends up signed in as the attacker). The origin cannot be
/// planted. `same-site` is refused too: another port of the same host is same-site. A post
/// with neither header (an old browser, a script) is left to the CSRF token alone, as OWASP's
/// Fetch Metadata guidance suggests.
enum FormOrigin {
    /// Whether `request` may be taken as a form of this site whose issuer is `issuer`.
    static func isSameOrigin(_ request: Request, issuer: String) -> Bool {
        if let site = request.headers["Sec-Fetch-Site"]?.lowercased() {
            // `none`: the person typed or bookmarked it; never a page's doing.
            return site == "same-origin" || site == "none"
        }
        guard let origin = request.headers["Origin"]?.lowercased() else { return true }
        guard origin != "null", let host = request.headers["Host"]?.lowercased() else { return false }
        let scheme = issuer.lowercased().hasPrefix("https://") ? "https" : "http"
        return origin == scheme + "://" + host || origin == issuerOrigin(issuer)
    }

    /// `scheme://host[:port]` of the issuer, lowercased.
    private static func issuerOrigin(_ issuer: String) -> String {
        let lowered = issuer.lowercased()
        guard let schemeEnd = lowered.range(of: "://") else { return lowered }
        let rest = lowered[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return String(lowered[..<schemeEnd.upperBound]) + authority
    }

    /// `Strict-Transport-Security` for an https issuer: a year, as browsers' preload lists ask.
    static let strictTransportSecurity = "max-age=31536000"
}
