import PorticoHTTP

/// The identity provider: assembles every endpoint onto one router and runs the HTTP server.
///
/// One value owns the lifetime of the server so that the CLI and the tests start and stop
/// Portico the same way.
public final class IdentityProvider: Sendable {
    /// The settings this provider was started with.
    public let configuration: ProviderConfiguration
    private let server: HTTPServer

    /// Builds the routes; nothing listens until ``start()``.
    public init(configuration: ProviderConfiguration) {
        self.configuration = configuration
        let router = Router()
        HealthEndpoint.register(on: router)
        var http = ServerConfiguration()
        http.host = configuration.host
        http.port = configuration.port
        if let threads = configuration.threads { http.threads = threads }
        http.logRequests = configuration.logRequests
        server = HTTPServer(configuration: http, router: router)
    }

    /// Binds the port and starts answering.
    public func start() throws {
        try server.start()
    }

    /// The port actually bound (useful when the configuration asked for port 0).
    public var port: UInt16 { server.port }

    /// The base URL people and apps reach this provider at.
    public var issuer: String {
        configuration.issuer ?? "http://\(configuration.host):\(port)"
    }

    /// Blocks until SIGINT or SIGTERM, then finishes in-flight requests and stops.
    public func runUntilTerminated() {
        server.runUntilTerminated()
    }

    /// Stops accepting, lets in-flight requests finish, and stops.
    public func shutdown() {
        server.shutdown()
    }
}
