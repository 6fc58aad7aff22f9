import Foundation

/// The host demo's command line: `[--backend URL] [--issuer URL] [--client-id ID] COMMAND`.
struct HostDemoOptions {
    enum Command: Equatable {
        case loginHost(user: String)
        case link(device: Bool)
        case miniProgramProfile(clientID: String)
        case logout
        case unbind
        case help
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static let usage = """
        usage: portico-host-demo [--backend URL] [--issuer URL] [--client-id ID] COMMAND

        A host app whose own users link their Portico account, so that the mini-programs it runs
        can use their Portico sign-in (account link; see Examples/host-backend/README.md).

        commands:
          login-host USER                  sign in to the host app itself (a stand-in for its own login)
          link                             link your Portico account to this host user (browser)
          mini-program CLIENT_ID profile   open a mini-program: print your name, read with its own token
          logout                           sign out of the host app; mini-programs forget your sign-in
          unbind                           unlink your Portico account (revokes the host's access)

        options:
          --backend URL      the host backend (default: $HOST_BACKEND, else http://127.0.0.1:8090)
          --issuer URL       the platform (default: $PORTICO_ISSUER, else http://127.0.0.1:8080)
          --client-id ID     the host's client id there (default: $PORTICO_CLIENT_ID)
          -h, --help         show this help

        The browser comes back to http://127.0.0.1:8091/callback (register it for the host client).
        State is kept in $XDG_CONFIG_HOME/portico-host-demo (or ~/.config/portico-host-demo), readable by you only.
        """

    /// The host's registered redirect URI. A confidential client's URI is matched byte for byte,
    /// port included, so the app listens on this port while the browser signs in.
    static let redirectURI = URL(string: "http://127.0.0.1:8091/callback")

    var backend: URL
    var issuer: URL
    var clientID: String
    var command: Command

    init(arguments: [String], environment: [String: String]) throws(UsageError) {
        func setting(_ name: String, _ fallback: String) -> String {
            environment[name].flatMap { $0.isEmpty ? nil : $0 } ?? fallback
        }
        var backendText = setting("HOST_BACKEND", "http://127.0.0.1:8090")
        var issuerText = setting("PORTICO_ISSUER", "http://127.0.0.1:8080")
        var clientID = environment["PORTICO_CLIENT_ID"] ?? ""
        var words: [String] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help":
                command = .help
                backend = URL(fileURLWithPath: "/")
                issuer = backend
                self.clientID = ""
                return
            case "--backend", "--issuer", "--client-id":
                guard let value = remaining.popFirst(), !value.hasPrefix("--") else {
                    throw UsageError(description: "\(argument) needs a value")
                }
                switch argument {
                case "--backend": backendText = value
                case "--issuer": issuerText = value
                default: clientID = value
                }
            default:
                words.append(argument)
            }
        }
        backend = try Self.httpURL(backendText, "backend")
        issuer = try Self.httpURL(issuerText, "issuer")
        self.clientID = clientID
        guard let name = words.first else { throw UsageError(description: "no command given (see --help)") }
        let rest = Array(words.dropFirst())
        switch (name, rest) {
        case ("login-host", let user) where user.count == 1 && !user[0].hasPrefix("-"):
            command = .loginHost(user: user[0])
        case ("login-host", _):
            throw UsageError(description: "login-host needs one USER")
        case ("link", []):
            command = .link(device: false)
        case ("link", ["--device"]):
            command = .link(device: true)
        case ("mini-program", let parts) where parts.count == 2 && parts[1] == "profile":
            command = .miniProgramProfile(clientID: parts[0])
        case ("mini-program", _):
            throw UsageError(description: "usage: mini-program CLIENT_ID profile")
        case ("logout", []):
            command = .logout
        case ("unbind", []):
            command = .unbind
        case ("link", let extra), ("logout", let extra), ("unbind", let extra):
            throw UsageError(description: "\(name) does not take \(extra.joined(separator: " "))")
        default:
            throw UsageError(description: "unknown command \(name) (see --help)")
        }
        if case .loginHost = command { return }
        guard !clientID.isEmpty else {
            throw UsageError(description: "give the host's client id with --client-id (or $PORTICO_CLIENT_ID)")
        }
    }

    private static func httpURL(_ text: String, _ what: String) throws(UsageError) -> URL {
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw UsageError(description: "the \(what) \(text) is not an http(s) URL")
        }
        return url
    }
}
