import Foundation

/// The fixed numbers of the companion's socket protocol and where its socket lives; see the
/// "Companion protocol" article.
public enum CompanionProtocol {
    /// The only protocol version.
    public static let version = 1
    /// The longest message (one line, without its newline) either side accepts.
    public static let maximumMessageBytes = 64 * 1024
    /// The longest string field of a request.
    public static let maximumFieldLength = 4096
    /// How long the agent waits for a request to arrive once a peer connected.
    public static let requestArrivalTimeout: Duration = .seconds(5)

    /// Where the agent for `issuer` listens: `$XDG_RUNTIME_DIR/portico/` (a per-user tmpfs),
    /// else `portico/` under `$XDG_CACHE_HOME` or `~/.cache`; one socket per issuer, named by a
    /// digest of it so any issuer URL gives a short path (`sun_path` holds 108 bytes).
    public static func socketPath(issuer: String, environment: [String: String]) -> URL {
        socketDirectory(environment: environment).appendingPathComponent("agent-\(issuerTag(issuer)).sock")
    }

    /// The socket directory (made `0700` by the agent).
    public static func socketDirectory(environment: [String: String]) -> URL {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return URL(fileURLWithPath: runtime).appendingPathComponent("portico")
        }
        let cache =
            environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".cache")
        return cache.appendingPathComponent("portico")
    }

    /// 16 hex digits of SHA-256 over the issuer without a trailing slash.
    static func issuerTag(_ issuer: String) -> String {
        let normalized = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        return PlatformCrypto.sha256(Array(normalized.utf8)).prefix(8).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }
}
