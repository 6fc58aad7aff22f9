import PorticoServer

/// `portico registration-token create`: an initial access token for `POST /oauth/register`.
enum RegistrationTokenCommand {
    static let summary = "make initial access tokens for dynamic client registration"
    static let usage = """
        usage: portico registration-token create [--uses N] [--expires DURATION] [--json]
                                                 [--database URL]

        Makes an initial access token (RFC 7591 §3) that a developer sends as
        "Authorization: Bearer TOKEN" to POST /oauth/register to register an app. The token
        is shown once; Portico stores only its hash.

          --uses N             how many registrations it allows (default: no limit)
          --expires DURATION   how long it is valid, such as 30m, 12h or 30d
                               (1m to 365d; default: no expiry)
          --json               print {"token": "..."}
          --database URL       sqlite:PATH or postgres://user@host:port/db
                               (PORTICO_DATABASE, default \(DatabaseOption.defaultURL))
        """

    static func run(_ arguments: inout Arguments, environment: [String: String]) throws {
        let url = try DatabaseOption.url(&arguments, environment: environment)
        _ = try Subcommand.action(&arguments, command: "registration-token", actions: ["create"])
        var issue = RegistrationTokenIssue()
        if let uses = try arguments.value("uses") {
            guard let count = Int(uses), count >= 1 else {
                throw CommandLineError.usage("--uses must be a whole number of at least 1, not '\(uses)'")
            }
            issue.uses = count
        }
        if let expires = try arguments.value("expires") {
            issue.lifetime = try SessionLifetimeOption.duration(expires, option: "--expires", range: 60...(365 * 86400))
        }
        let json = arguments.flag("json")
        try arguments.finish()
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let token = try performing { () throws(AdminError) in try issue.create(in: store) }
        if json {
            print(JSONLine.object([("token", token)]))
            return
        }
        print("registration token: \(token)")
        print("Keep it now: it is not shown again (Portico stores only its hash).")
    }
}
