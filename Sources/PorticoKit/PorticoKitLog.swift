import Foundation

#if canImport(os)
    import os
#endif

/// PorticoKit's log: what it did (sign-in, refresh, sign-out) and why it failed, with every
/// secret redacted before any handler sees it.
///
/// By default it goes to the unified log (`os.Logger`, subsystem `PorticoKit`) on Apple
/// platforms and nowhere elsewhere; ``setHandler(_:)`` sends it to the app's own logger
/// instead (or nil to silence it). Tokens, codes, verifiers and secrets never reach either:
/// see ``redact(_:)``.
public enum PorticoKitLog {
    /// How much a line matters.
    public enum Level: String, Sendable {
        /// Detail for debugging a flow.
        case debug
        /// A step that happened (signed in, refreshed, signed out).
        case info
        /// Something failed.
        case error
    }

    /// A handler of redacted lines.
    public typealias Handler = @Sendable (Level, String) -> Void

    private static let handler = LockedState<Handler?>(defaultHandler)

    /// The platform's default: the unified log on Apple platforms, none elsewhere.
    public static var defaultHandler: Handler? {
        #if canImport(os)
            let logger = Logger(subsystem: "PorticoKit", category: "auth")
            return { level, line in
                switch level {
                case .debug: logger.debug("\(line, privacy: .public)")
                case .info: logger.info("\(line, privacy: .public)")
                case .error: logger.error("\(line, privacy: .public)")
                }
            }
        #else
            return nil
        #endif
    }

    /// Sends PorticoKit's lines to `handler` (nil: nowhere).
    public static func setHandler(_ handler: Handler?) {
        self.handler.withLock { $0 = handler }
    }

    /// Logs `line`, redacted.
    static func log(_ level: Level, _ line: @autoclosure () -> String) {
        guard let current = handler.withLock({ $0 }) else { return }
        current(level, redact(line()))
    }

    /// `text` with secrets replaced by `<redacted>`: the values of token, code, verifier,
    /// secret and assertion parameters (in URLs, forms and JSON), bearer credentials, and
    /// anything shaped like a JWT.
    public static func redact(_ text: String) -> String {
        var result = text
        let names = [
            "access_token", "refresh_token", "id_token", "code", "code_verifier", "client_secret",
            "client_assertion", "device_code", "subject_token", "actor_token", "logout_token", "assertion",
            "id_token_hint", "password",
        ]
        let alternatives = names.joined(separator: "|")
        let patterns = [
            #"((?:^|[?&\s])(?:\#(alternatives))=)[^&\s"]*"#,
            #"("(?:\#(alternatives))"\s*:\s*")[^"]*"#,
            #"((?i:bearer|dpop)\s+)[A-Za-z0-9\-._~+/]+=*"#,
            #"()eyJ[A-Za-z0-9_\-]*\.[A-Za-z0-9_\-]*\.[A-Za-z0-9_\-]*"#,
        ]
        for pattern in patterns {
            guard let expression = try? NSRegularExpression(pattern: pattern) else { continue }
            let range = NSRange(result.startIndex..., in: result)
            result = expression.stringByReplacingMatches(
                in: result, range: range, withTemplate: "$1<redacted>")
        }
        return result
    }
}
