import Foundation
import PorticoDemo
import PorticoHTTP
import PorticoServer
import PorticoStore

/// `portico serve`: runs the identity provider until SIGINT or SIGTERM.
enum ServeCommand {
    static let summary = "run the identity provider"
    static let usage = """
        usage: portico serve [--host HOST] [--port PORT] [--issuer URL] [--database URL]
                             [--database-pool N] [--threads N] [--quiet] [--demo] [--outbox DIR]
                             [--metrics] [--key-file PATH] [--allowed-host HOST ...]
                             [--trusted-proxy CIDR ...] [--client-address-header NAME]
                             [--session-lifetime DURATION] [--remembered-session-lifetime DURATION]
                             [--allow-loopback-callbacks] [--dpop-nonce] [--open-registration]
                             [--require-par] [--allow-loopback-client-metadata]

        Runs the identity provider until Ctrl-C (SIGINT) or SIGTERM, then finishes the
        requests in flight and exits 0.

          --host HOST       address to listen on (PORTICO_HOST, default 127.0.0.1)
          --port PORT       TCP port, 0 for any free one (PORTICO_PORT, default 8080)
          --issuer URL      issuer identifier (PORTICO_ISSUER, default http://HOST:PORT)
          --database URL    sqlite:PATH or postgres://user@host:port/db
                            (PORTICO_DATABASE, default \(DatabaseOption.defaultURL))
          --database-pool N
                            most PostgreSQL connections (default: the worker threads,
                            four per core with PostgreSQL)
          --threads N       HTTP threads (default: one per core)
          --quiet           no per-request log line on stderr
          --demo            add a demo app and person, and a /demo/callback page
          --outbox DIR      folder for outgoing mail such as password-reset links
                            (PORTICO_OUTBOX, default: outbox next to an SQLite database)
          --metrics         serve Prometheus metrics at GET /metrics (PORTICO_METRICS=1;
                            default off); answered only to loopback clients, 403 to others
                            and to requests relayed with Forwarded/X-Forwarded-For
          --key-file PATH   the key that encrypts the signing keys in the database
                            (PORTICO_KEY_FILE; default DATABASE.key beside an SQLite
                            database, made 0600 on the first start); give every node on
                            one database the same file
          --allowed-host HOST
                            a host name answered besides the issuer's (repeatable);
                            requests naming any other Host get 421 (DNS rebinding)
          --trusted-proxy CIDR
                            a reverse proxy (address or range, repeatable) whose
                            --client-address-header names the client for throttles,
                            sessions and audit; nobody's is believed by default
          --client-address-header NAME
                            the one header those proxies write the client's address
                            into: X-Forwarded-For (default), X-Real-IP or Forwarded.
                            Read from the right, so the proxy must append to it or
                            overwrite it (X-Real-IP: overwrite). No other header is
                            read, since a proxy passes a client's own through
          --session-lifetime DURATION
                            how long a browser session without "Keep me signed in" lasts
                            unused, such as 30m or 12h (default 12h; 5m to 7d); however
                            busy, it ends after twice that or 24h, whichever is
                            shorter (never sooner than the lifetime itself)
          --remembered-session-lifetime DURATION
                            the same with "Keep me signed in", such as 7d (default 30d;
                            1h to 365d); it ends after three times that or 90d, whichever
                            is shorter (never sooner than the lifetime itself)
          --allow-loopback-callbacks
                            let the server's own requests to apps' URLs (back-channel
                            logout URIs) go to loopback addresses such as 127.0.0.1, for
                            tests and local development whose app backends run on this
                            machine; off by default. Private, link-local and reserved
                            addresses (10/8, 192.168/16, 169.254/16, fc00::/7, …) are
                            refused either way, checked on the resolved address before
                            each request
          --allow-loopback-client-metadata
                            FOR TESTS ONLY: let client metadata documents (a client_id
                            that is an https URL) be fetched from loopback addresses.
                            Off by default: anyone can name such a URL, so the server
                            must fetch nothing on its own machine. Private, link-local
                            and reserved addresses are refused either way
          --dpop-nonce      every DPoP proof must carry a nonce of the server's (RFC 9449
                            §8): a proof without a current one is answered use_dpop_nonce
                            with the nonce in the DPoP-Nonce header. Any node on the same
                            --key-file checks another's nonces without the database
          --open-registration
                            let anyone register an app at POST /oauth/register
                            (RFC 7591) without an initial access token, 10 an
                            hour per address; off by default, when registration
                            needs a token from 'portico registration-token create'
          --require-par     every app must push its authorization requests to /oauth/par
                            (RFC 9126): /oauth/authorize refuses the others (client add
                            --require-par asks it of one app)
        """

    static func run(_ arguments: inout Arguments, environment: [String: String]) throws {
        var configuration = ProviderConfiguration()
        configuration.host = try arguments.value("host") ?? environment["PORTICO_HOST"] ?? configuration.host
        if let port = try arguments.value("port") ?? environment["PORTICO_PORT"] {
            guard let number = UInt16(port) else {
                throw CommandLineError.usage("port must be a number from 0 to 65535, not '\(port)'")
            }
            configuration.port = number
        }
        if let issuer = try arguments.value("issuer") ?? environment["PORTICO_ISSUER"] {
            configuration.issuer = try IssuerValidation.validated(issuer)
        }
        let databaseURL = try DatabaseOption.url(&arguments, environment: environment)
        let poolSize = try DatabaseOption.poolSize(&arguments) ?? IdentityProvider.remoteStoreWorkerThreads
        if let threads = try arguments.value("threads") {
            guard let count = Int(threads), (1...256).contains(count) else {
                throw CommandLineError.usage("threads must be a number from 1 to 256, not '\(threads)'")
            }
            configuration.threads = count
        }
        configuration.logRequests = !arguments.flag("quiet")
        configuration.demo = arguments.flag("demo")
        // The demo app is PorticoDemo's, served beside the provider; its credentials go in the banner.
        let demoApp = configuration.demo ? DemoApp() : nil
        if let demoApp { configuration.apps.append(demoApp) }
        if let outbox = try arguments.value("outbox") ?? environment["PORTICO_OUTBOX"] {
            guard !outbox.isEmpty, !outbox.contains("\u{0}") else {
                throw CommandLineError.usage("outbox must be a folder path")
            }
            configuration.outboxDirectory = outbox
        }
        configuration.metrics = try arguments.flag("metrics") || metricsFromEnvironment(environment["PORTICO_METRICS"])
        configuration.keyFile = try KeyFileOption.path(&arguments, environment: environment)
        configuration.allowedHosts = try arguments.values("allowed-host").map { host in
            guard !host.isEmpty, !host.contains(where: { $0 == "/" || $0 == " " || $0 == "@" }) else {
                throw CommandLineError.usage("allowed-host must be a host name, not '\(host)'")
            }
            return host
        }
        configuration.trustedProxies = try arguments.values("trusted-proxy").map { text in
            guard let range = IPAddressRange(text) else {
                throw CommandLineError.usage(
                    "trusted-proxy must be an IP address or CIDR range such as 10.0.0.0/8, not '\(text)'")
            }
            return range
        }
        if let name = try arguments.value("client-address-header") {
            guard let header = ClientAddressHeader(name: name) else {
                throw CommandLineError.usage(
                    "client-address-header must be X-Forwarded-For, X-Real-IP or Forwarded, not '\(name)'")
            }
            configuration.clientAddressHeader = header
        }
        try SessionLifetimeOption.apply(&arguments, to: &configuration.lifetimes)
        configuration.allowsLoopbackCallbacks = arguments.flag("allow-loopback-callbacks")
        configuration.requiresDPoPNonce = arguments.flag("dpop-nonce")
        configuration.allowsOpenRegistration = arguments.flag("open-registration")
        configuration.requiresPAR = arguments.flag("require-par")
        configuration.allowsLoopbackClientMetadata = arguments.flag("allow-loopback-client-metadata")
        try arguments.finish()
        try requireIssuerOffLoopback(configuration)

        // Before any server thread exists and long before the banner: a SIGTERM sent as soon as
        // the banner appears still drains and exits 0.
        TerminationSignals.catchNow()
        let provider: IdentityProvider
        let location: StoreLocation
        do {
            let store = try DatabaseOption.open(databaseURL, creating: true, longRunning: true, poolSize: poolSize)
            location = store.location
            do {
                provider = try IdentityProvider(configuration: configuration, store: store)
            } catch {
                store.close()
                throw error
            }
        } catch let error as CommandLineError {
            throw error
        } catch let error as KeyFileError {
            throw CommandLineError.failure(error.description)
        } catch {
            throw CommandLineError.failure(
                "cannot open the database \(DatabaseOption.displayed(databaseURL)): \(error)")
        }
        do {
            try provider.start()
        } catch HTTPServerError.addressInUse(let host, let port) {
            throw CommandLineError.failure(portTakenMessage(host: host, port: port))
        } catch let error as HTTPServerError {
            throw CommandLineError.failure(error.description)
        } catch {
            throw CommandLineError.failure(
                "cannot start on \(configuration.host):\(configuration.port): \(error)")
        }
        // Written unbuffered so that scripts waiting for this line see it at once.
        let banner =
            "Portico is listening on http://\(configuration.host):\(provider.port)\nIssuer: \(provider.issuer)\n"
        let metrics =
            configuration.metrics
            ? "Metrics: http://\(configuration.host):\(provider.port)/metrics (loopback clients only)\n" : ""
        // Sign-up and reset links go by mail; a newcomer must know where to read it.
        let mail =
            "Mail (sign-up and password-reset links): .eml files in \(configuration.effectiveOutboxDirectory(beside: location))\n"
        FileHandle.standardOutput.write(Data((banner + metrics + mail + demoBanner(demoApp?.credentials)).utf8))
        provider.runUntilTerminated()
    }

    /// Refuses a listen address other machines reach when no issuer is given.
    ///
    /// Why: the issuer derived from `--host 0.0.0.0` is `http://0.0.0.0:PORT`, a name no browser
    /// sends in `Host`, so every request would get 421 (and `--demo` could not register its
    /// redirect URI). Only the operator knows the name people reach this machine by.
    static func requireIssuerOffLoopback(_ configuration: ProviderConfiguration) throws {
        guard configuration.issuer == nil, !isLoopback(configuration.host) else { return }
        let port = configuration.port == 0 ? "PORT" : String(configuration.port)
        throw CommandLineError.usage(
            "--host \(configuration.host) is reached by other machines, so give the URL they use: "
                + "--issuer http://<this host>:\(port) (or PORTICO_ISSUER)")
    }

    /// Whether `host` is a loopback listen address (127.0.0.0/8, ::1, localhost).
    static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased()
        return name == "localhost" || name == "::1" || name == "[::1]" || name.hasPrefix("127.")
    }

    /// One line for a port another process holds: who holds it when `/proc` tells, and how to
    /// pick another port with `make run` and with `serve`.
    static func portTakenMessage(host: String, port: UInt16) -> String {
        let owner = PortOwner.describe(listeningOn: port).map { " by \($0)" } ?? ""
        let other = port == UInt16.max ? port - 1 : port + 1
        return "port \(port) on \(host) is taken\(owner); stop that, or use another port: "
            + "make run PORT=\(other) (portico serve --port \(other))"
    }

    /// `PORTICO_METRICS`: 1/true/yes/on turn metrics on, 0/false/no/off or unset leave them off.
    static func metricsFromEnvironment(_ value: String?) throws -> Bool {
        switch value?.lowercased() {
        case nil, "", "0", "false", "no", "off": return false
        case "1", "true", "yes", "on": return true
        case let other?: throw CommandLineError.usage("PORTICO_METRICS must be 1 or 0, not '\(other)'")
        }
    }
}

/// The lines `--demo` adds to the banner: the one URL to open and how to sign in.
private func demoBanner(_ demo: DemoCredentials?) -> String {
    guard let demo else { return "" }
    let password = demo.password ?? "(changed since the demo created it)"
    return """

        Demo: open \(demo.startURL) and press "Login with Portico".
        Demo sign-in: \(demo.email) / \(password)

        """
}

/// Checks an issuer URL the way OpenID Connect Discovery requires it.
enum IssuerValidation {
    /// The issuer without a trailing slash; http(s), a host, no query or fragment.
    static func validated(_ text: String) throws -> String {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host != nil, url.query == nil, url.fragment == nil
        else {
            throw CommandLineError.usage(
                "issuer must be an http(s) URL with a host and no query or fragment, not '\(text)'")
        }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }
}
