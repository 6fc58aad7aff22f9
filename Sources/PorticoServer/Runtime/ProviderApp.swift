import Foundation
import PorticoHTTP
import PorticoStore

/// An app served beside the provider, on the provider's own router and issuer: the
/// `portico serve --demo` app (`DemoApp`, in PorticoDemo) is one.
///
/// Why a seam rather than a folder: such an app is a client of the provider, not a part of it,
/// so it lives in its own module and the provider never depends on it. It gets its routes and a
/// few services (``ProviderAppServices``) while the provider assembles its router, and a call
/// once the server is bound and the issuer is known (``prepare()``).
public protocol ProviderApp: Sendable {
    /// Adds the app's routes to `router`; called once per provider built with this app.
    func register(on router: Router, services: ProviderAppServices)

    /// Called once the server listens and the issuer is known: seed what the app needs. A
    /// failure stops the provider from starting.
    func prepare() throws
}

/// What the provider lends an app it serves (``ProviderApp``): the issuer, the store, the
/// password hasher, a clock and secrets derived from its keys.
///
/// Deliberately small: an app uses the provider as any other app does (over HTTP), and these
/// are only what it needs to register itself and to run on the same host.
public struct ProviderAppServices: Sendable {
    /// The store the provider reads and writes, for registering the app's client and people.
    public let store: any Store
    /// The provider's password hasher, for the people an app registers or checks.
    public let passwords: PasswordHasher
    private let keys: KeyRing
    private let clock: @Sendable () -> Date
    private let issuerIdentifier: IssuerIdentifier

    init(_ context: ProviderContext) {
        store = context.store
        passwords = context.passwords
        keys = context.keys
        clock = context.now
        issuerIdentifier = context.issuerIdentifier
    }

    /// The issuer identifier, without a trailing slash; known for sure only from
    /// ``ProviderApp/prepare()`` on (a server on port 0 learns its port late).
    public var issuer: String { issuerIdentifier.current }

    /// Whether people reach the provider over https, so the app's cookies must be `Secure`.
    public var usesHTTPS: Bool { issuerIdentifier.usesHTTPS }

    /// The provider's clock (tests pin it).
    public func now() -> Date { clock() }

    /// A secret for `purpose` derived from the provider's key file: the same on every node given
    /// the same file, and never stored.
    public func derivedSecret(purpose: String) -> [UInt8] {
        keys.derivedSecret(purpose: purpose)
    }

    /// A redirect to the same path at the issuer's host when `request` came to another name of
    /// this server (`localhost` for `127.0.0.1`), where cookies set now would be lost; else nil.
    public func redirectToIssuerHost(_ request: Request) -> Response? {
        IssuerHostRedirect.redirect(request, issuer: issuer)
    }
}
