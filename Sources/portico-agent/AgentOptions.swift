import Foundation

/// The agent's command line: `[--issuer URL] [--client-id ID] COMMAND [FLAGS]`.
struct AgentOptions {
    enum Command: Equatable {
        case login(device: Bool)
        case status(json: Bool)
        case logout
        case serve(consentTimeout: Duration)
        case pending(json: Bool)
        case approve(String)
        case deny(String)
        case help(String?)
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    var issuer: URL
    var clientID: String
    var command: Command

    /// The consent time-out `serve` uses unless `--consent-timeout` says otherwise.
    static let defaultConsentTimeout: Duration = .seconds(120)

    init(arguments: [String], environment: [String: String]) throws(UsageError) {
        var issuerText = environment["PORTICO_ISSUER"].flatMap { $0.isEmpty ? nil : $0 } ?? "http://127.0.0.1:8080"
        var clientID = environment["PORTICO_AGENT_CLIENT_ID"] ?? ""
        var words: [String] = []
        var wantsHelp = false
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help":
                wantsHelp = true
            case "--issuer", "--client-id":
                guard let value = remaining.popFirst(), !value.hasPrefix("--") else {
                    throw UsageError(description: "\(argument) needs a value")
                }
                if argument == "--issuer" { issuerText = value } else { clientID = value }
            default:
                words.append(argument)
            }
        }
        if wantsHelp {
            command = .help(words.first)
            issuer = URL(fileURLWithPath: "/")
            self.clientID = ""
            if let name = words.first, AgentUsage.commands[name] == nil {
                throw UsageError(description: "unknown command \(name) (see --help)")
            }
            return
        }
        guard let url = URL(string: issuerText), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw UsageError(description: "the issuer \(issuerText) is not an http(s) URL")
        }
        issuer = url
        guard let name = words.first else { throw UsageError(description: "no command given (see --help)") }
        var flags = Array(words.dropFirst())
        func only(_ allowed: [String]) throws(UsageError) {
            if let unknown = flags.first(where: { !allowed.contains($0) }) {
                throw UsageError(description: "\(name) does not take \(unknown) (see portico-agent \(name) --help)")
            }
        }
        func identifier() throws(UsageError) -> String {
            guard flags.count == 1, let id = flags.first, !id.hasPrefix("-") else {
                throw UsageError(description: "\(name) needs one consent ID (see portico-agent pending)")
            }
            return id
        }
        switch name {
        case "login":
            try only(["--device"])
            command = .login(device: flags.contains("--device"))
        case "status":
            try only(["--json"])
            command = .status(json: flags.contains("--json"))
        case "logout":
            try only([])
            command = .logout
        case "serve":
            var timeout = Self.defaultConsentTimeout
            if let index = flags.firstIndex(of: "--consent-timeout") {
                guard index + 1 < flags.count, let seconds = Int(flags[index + 1]), (1...3600).contains(seconds) else {
                    throw UsageError(description: "--consent-timeout needs a number of seconds from 1 to 3600")
                }
                timeout = .seconds(seconds)
                flags.removeSubrange(index...(index + 1))
            }
            try only([])
            command = .serve(consentTimeout: timeout)
        case "pending":
            try only(["--json"])
            command = .pending(json: flags.contains("--json"))
        case "approve":
            command = .approve(try identifier())
        case "deny":
            command = .deny(try identifier())
        default:
            throw UsageError(description: "unknown command \(name) (see --help)")
        }
        let needsClient: Bool
        switch command {
        case .login, .logout, .status, .serve: needsClient = true
        default: needsClient = false
        }
        if needsClient && clientID.isEmpty {
            throw UsageError(description: "no client id: pass --client-id or set PORTICO_AGENT_CLIENT_ID")
        }
        self.clientID = clientID
    }
}
