import Foundation

/// A cookie to send with `Set-Cookie` (RFC 6265), with every attribute a session cookie needs.
///
/// Defaults are the safe ones for a sign-in session: `Path=/`, `HttpOnly`, `SameSite=Lax`;
/// set `isSecure` whenever the site is served over HTTPS. The value is sent as is, so keep it to
/// cookie-safe characters (base64url tokens are).
public struct Cookie: Sendable, Hashable {
    /// The `SameSite` attribute, which decides whether cross-site requests carry the cookie.
    public enum SameSite: String, Sendable, Hashable {
        /// Never sent on cross-site requests.
        case strict = "Strict"
        /// Sent on top-level cross-site navigations (what OAuth redirects need).
        case lax = "Lax"
        /// Always sent; browsers require `Secure` with it.
        case none = "None"
    }

    /// The cookie's name.
    public var name: String
    /// The cookie's value, sent unquoted and unencoded.
    public var value: String
    /// `Path`: the URL prefix the browser sends the cookie to; nil leaves it out.
    public var path: String?
    /// `Domain`: widens the cookie to subdomains; nil keeps it host-only, the safer default.
    public var domain: String?
    /// `Max-Age` in seconds; 0 or less deletes the cookie, nil makes a session cookie.
    public var maxAge: Int?
    /// `Expires`, for old clients that ignore `Max-Age`; nil leaves it out.
    public var expires: Date?
    /// `Secure`: only sent over HTTPS.
    public var isSecure: Bool
    /// `HttpOnly`: hidden from scripts, which keeps session ids out of reach of XSS.
    public var isHTTPOnly: Bool
    /// `SameSite`; nil leaves the browser's default.
    public var sameSite: SameSite?

    /// Creates a cookie; the defaults suit a session cookie on the whole site.
    public init(
        name: String, value: String, path: String? = "/", domain: String? = nil, maxAge: Int? = nil,
        expires: Date? = nil, isSecure: Bool = false, isHTTPOnly: Bool = true, sameSite: SameSite? = .lax
    ) {
        self.name = name
        self.value = value
        self.path = path
        self.domain = domain
        self.maxAge = maxAge
        self.expires = expires
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
    }

    /// A cookie that makes the browser delete `name` (empty value, `Max-Age=0`, expired date);
    /// `path` and `domain` must match the ones it was set with.
    public static func expired(name: String, path: String? = "/", domain: String? = nil) -> Cookie {
        Cookie(
            name: name, value: "", path: path, domain: domain, maxAge: 0,
            expires: Date(timeIntervalSince1970: 0))
    }

    /// The `Set-Cookie` field value, attributes in a fixed order.
    public var headerValue: String {
        var text = "\(name)=\(value)"
        if let path { text += "; Path=\(path)" }
        if let domain { text += "; Domain=\(domain)" }
        if let maxAge { text += "; Max-Age=\(maxAge)" }
        if let expires { text += "; Expires=\(Self.httpDate(expires))" }
        if isSecure { text += "; Secure" }
        if isHTTPOnly { text += "; HttpOnly" }
        if let sameSite { text += "; SameSite=\(sameSite.rawValue)" }
        return text
    }

    /// Formats an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) without a `DateFormatter`,
    /// whose locale and time zone would otherwise have to be pinned.
    static func httpDate(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = days[Int(parts.tm_wday) % 7]
        let month = months[Int(parts.tm_mon) % 12]
        return "\(day), \(twoDigits(parts.tm_mday)) \(month) \(parts.tm_year + 1900) "
            + "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
    }
}
