import Foundation

/// The demo's command line: `[--issuer URL] [--client-id ID] COMMAND [FLAGS]`.
struct DemoOptions {
    enum Command: Equatable {
        case login(device: Bool, companion: Bool)
        case whoami(json: Bool)
        case token
        case logout
        case help
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static let usage = """
        usage: portico-demo [--issuer URL] [--client-id ID] COMMAND

        A small third-party app that signs in with Portico through PorticoKit.

        commands:
          login [--device] [--no-companion]
                             sign in: through the Portico agent when one is signed in on this computer
                             (single sign-on, no password), else in the browser; --device: with a code
                             on another device; --no-companion: never through the agent
          whoami [--json]    show who is signed in (--json: the whole profile)
          token              print a valid access token, refreshing it if needed
          logout             revoke the tokens and forget them

        options:
          --issuer URL       the provider (default: $PORTICO_ISSUER, else http://127.0.0.1:8080)
          --client-id ID     this app's client id (default: $PORTICO_CLIENT_ID)
          -h, --help         show this help

        Tokens are kept in $XDG_CONFIG_HOME/portico-demo (or ~/.config/portico-demo), readable by you only.
        """

    var issuer: URL
    var clientID: String
    var command: Command

    init(arguments: [String], environment: [String: String]) throws(UsageError) {
        var issuerText = environment["PORTICO_ISSUER"].flatMap { $0.isEmpty ? nil : $0 } ?? "http://127.0.0.1:8080"
        var clientID = environment["PORTICO_CLIENT_ID"] ?? ""
        var words: [String] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help":
                command = .help
                issuer = URL(fileURLWithPath: "/")
                self.clientID = ""
                return
            case "--issuer", "--client-id":
                guard let value = remaining.popFirst(), !value.hasPrefix("--") else {
                    throw UsageError(description: "\(argument) needs a value")
                }
                if argument == "--issuer" { issuerText = value } else { clientID = value }
            default:
                words.append(argument)
            }
        }
        guard let url = URL(string: issuerText), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw UsageError(description: "the issuer \(issuerText) is not an http(s) URL")
        }
        issuer = url
        guard let name = words.first else { throw UsageError(description: "no command given (see --help)") }
        let flags = Array(words.dropFirst())
        func only(_ allowed: [String]) throws(UsageError) {
            if let unknown = flags.first(where: { !allowed.contains($0) }) {
                throw UsageError(description: "\(name) does not take \(unknown)")
            }
        }
        switch name {
        case "login":
            try only(["--device", "--no-companion"])
            command = .login(device: flags.contains("--device"), companion: !flags.contains("--no-companion"))
        case "whoami":
            try only(["--json"])
            command = .whoami(json: flags.contains("--json"))
        case "token":
            try only([])
            command = .token
        case "logout":
            try only([])
            command = .logout
        default:
            throw UsageError(description: "unknown command \(name) (see --help)")
        }
        guard !clientID.isEmpty else {
            throw UsageError(description: "no client id: pass --client-id or set PORTICO_CLIENT_ID")
        }
        self.clientID = clientID
    }
}
