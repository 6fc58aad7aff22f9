import PorticoStore

/// One grant type of the token endpoint (RFC 6749 §4 and its extensions): the `grant_type`
/// values it answers, which clients may be registered for it, and the exchange itself.
///
/// The static members describe the grant to everything that lists grants without running one
/// (discovery, client registration and the CLI's help, metrics); the instance is built once per
/// provider from ``TokenGrantDependencies`` and keeps only what it uses. A conforming type is
/// added to the provider by one line in ``TokenGrantRegistry/grants``.
protocol TokenGrant: Sendable {
    /// The `grant_type` it is registered, advertised (`grant_types_supported`) and stored under.
    static var grantType: String { get }
    /// Other `grant_type` values it answers, accepted as aliases by `--grant` too (Login with
    /// Amazon's `device_code`); none by default.
    static var dialects: [String] { get }
    /// The `grant` label of `portico_tokens_issued_total`; the grant type by default.
    static var metricsLabel: String { get }
    /// The kinds of client that may be registered for it; both by default.
    static var clientTypes: Set<ClientType> { get }
    /// Whether a client registered without `--grant` gets it; false by default.
    static var isDefault: Bool { get }
    /// Whether a client registered for it needs a redirect URI; false by default.
    static var needsRedirectURI: Bool { get }
    /// Words the CLI's help adds after the grant's name; none by default.
    static var helpNote: String? { get }
    /// Error codes of its own beyond RFC 6749 §5.2's (RFC 8628's `slow_down`, …), so that
    /// `portico_token_errors_total` has a series for each; none by default.
    static var errorCodes: [String] { get }
    /// Whether `exchange` never touches the store (client credentials), so that with a client
    /// already in memory the request is answered on the epoll thread even with a remote store;
    /// false by default.
    static var answersFromMemory: Bool { get }

    /// The grant of a provider.
    init(_ dependencies: TokenGrantDependencies)

    /// The client a request that does not authenticate speaks for when this grant's own
    /// parameters name it (Login with Amazon's device poll carries only its codes); nil, the
    /// default, means the client authenticates as at every back-channel endpoint.
    func client(namedBy parameters: OAuthParameters, grantType: String) throws -> AuthenticatedClient?

    /// Decides what `request` gets, or throws the ``OAuthError`` it is answered with. The
    /// client is authenticated and registered for this grant by then.
    func exchange(_ request: TokenRequest) throws -> TokenIssuance
}

extension TokenGrant {
    static var dialects: [String] { [] }
    static var metricsLabel: String { grantType }
    static var clientTypes: Set<ClientType> { [.public, .confidential] }
    static var isDefault: Bool { false }
    static var needsRedirectURI: Bool { false }
    static var helpNote: String? { nil }
    static var errorCodes: [String] { [] }
    static var answersFromMemory: Bool { false }

    func client(namedBy parameters: OAuthParameters, grantType: String) throws -> AuthenticatedClient? {
        nil
    }
}
