import CLibPQ
import Foundation

/// A `postgres://` or `postgresql://` URL checked before any connection, with what libpq needs to
/// connect and a description of the server that is safe to print.
///
/// libpq reads the URL itself (`user[:password]@host[:port]/db`, several hosts, query parameters
/// such as `sslmode`), and so does the password lookup: `PGPASSWORD`, then `~/.pgpass`. Portico
/// adds defaults that the URL may override: a bounded connect timeout, TCP keepalives and a
/// user timeout (a server that vanished without a reset is noticed, not waited for), a statement
/// timeout and an idle-in-transaction timeout (a hung node cannot hold locks forever).
struct PostgresURL: Sendable {
    /// The URL as given (it may hold a password: never print it).
    let url: String
    /// `user@host:port/db` as libpq will use it, without the password.
    let target: String

    /// Seconds libpq waits for a connection before it gives up.
    static let connectTimeoutSeconds = 5
    /// Longest one statement may run (milliseconds).
    static let statementTimeoutMilliseconds = 30_000

    /// Checks the URL with libpq's own parser; a URL it refuses throws
    /// ``PostgresError/Kind/invalidURL`` with libpq's reason in one line.
    init(_ url: String) throws(PostgresError) {
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
            throw PostgresError(
                kind: .invalidURL, sqlState: nil, message: "it must start with postgres:// or postgresql://")
        }
        guard !url.utf8.contains(0) else {
            throw PostgresError(kind: .invalidURL, sqlState: nil, message: "it contains a NUL character")
        }
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &errorMessage) else {
            let reason = errorMessage.map { String(cString: $0) } ?? "libpq could not read it"
            if let errorMessage { PQfreemem(errorMessage) }
            throw PostgresError(
                kind: .invalidURL, sqlState: nil, message: Self.redacted(Self.oneLine(reason), url: url))
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        if let port = values["port"], !port.split(separator: ",").allSatisfy({ UInt16($0) != nil && $0 != "0" }) {
            throw PostgresError(kind: .invalidURL, sqlState: nil, message: "invalid port \"\(port)\"")
        }
        self.url = url
        let user = values["user"] ?? ProcessInfo.processInfo.environment["PGUSER"]
        let host = values["host"] ?? values["hostaddr"] ?? "localhost"
        let port = values["port"] ?? "5432"
        let database = values["dbname"] ?? user ?? ""
        target = "\(user.map { "\($0)@" } ?? "")\(host):\(port)/\(database)"
    }

    /// The keyword/value pairs for `PQconnectdbParams`: Portico's defaults first, then the URL
    /// (as an expanded `dbname`), so that whatever the URL says wins.
    var parameters: [(String, String)] {
        [
            ("connect_timeout", String(Self.connectTimeoutSeconds)),
            ("application_name", "portico"),
            ("keepalives", "1"),
            ("keepalives_idle", "10"),
            ("keepalives_interval", "5"),
            ("keepalives_count", "3"),
            ("tcp_user_timeout", "15000"),
            (
                "options",
                "-c statement_timeout=\(Self.statementTimeoutMilliseconds) -c idle_in_transaction_session_timeout=60000"
            ),
            ("dbname", url),
        ] + overrides
    }

    /// Parameters that win even over the URL's (the change listener's `application_name`).
    var overrides: [(String, String)] = []

    /// libpq quotes the whole URL in some of its complaints (`… in URI: "postgres://u:pw@…"`);
    /// the URL, and the password on its own, are cut out of `message`.
    static func redacted(_ message: String, url: String) -> String {
        var text = message.replacingOccurrences(of: " in URI: \"\(url)\"", with: "")
        text = text.replacingOccurrences(of: url, with: "(the URL)")
        if let password = password(in: url), !password.isEmpty {
            text = text.replacingOccurrences(of: password, with: "(the password)")
        }
        return text
    }

    /// The password of `scheme://user:password@host…`, as written (found without libpq, which
    /// may just have refused the URL).
    static func password(in url: String) -> String? {
        guard let scheme = url.range(of: "://") else { return nil }
        let rest = url[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        guard let at = authority.lastIndex(of: "@") else { return nil }
        let userInfo = authority[..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return nil }
        return String(userInfo[userInfo.index(after: colon)...])
    }

    /// libpq's messages end in newlines and sometimes carry a second line ("Is the server
    /// running…"); an operator gets the first line, trimmed.
    static func oneLine(_ message: String) -> String {
        let first = message.split(whereSeparator: \.isNewline).first.map(String.init) ?? message
        return first.trimmingCharacters(in: .whitespaces)
    }
}
