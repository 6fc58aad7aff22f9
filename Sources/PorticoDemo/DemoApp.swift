import PorticoHTTP
import PorticoServer
import Synchronization

/// The app of `portico serve --demo`, served beside the provider (``ProviderApp``): put one
/// among ``ProviderConfiguration/apps`` and set ``ProviderConfiguration/demo`` so the home page
/// links it.
///
/// It lives in its own module because it is a client of the provider, not a part of it: it
/// signs in over HTTP as any third-party app does, and borrows from the provider only what it
/// needs to register itself (``ProviderAppServices``).
public final class DemoApp: ProviderApp {
    /// The demo of the provider that registered it last (a restarted provider registers again).
    private let site = Mutex<DemoSite?>(nil)

    /// An app that does nothing until a provider registers it.
    public init() {}

    /// Adds the demo's routes under `/demo`.
    public func register(on router: Router, services: ProviderAppServices) {
        let site = DemoSite(services: services)
        self.site.withLock { $0 = site }
        DemoRoutes.register(on: router, site: site, services: services)
    }

    /// Seeds the demo app's client and the demo person for the now known issuer.
    public func prepare() throws {
        _ = try site.withLock { $0 }?.prepare()
    }

    /// Once the provider started: the demo app's URL and the demo person's sign-in; else nil.
    public var credentials: DemoCredentials? {
        site.withLock { $0 }?.credentials
    }
}
