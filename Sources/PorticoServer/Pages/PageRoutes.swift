import PorticoHTTP

/// The pages people see: authorize, sign-in, consent, errors, and the stylesheet.
enum PageRoutes {
    static func register(on router: Router, context: ProviderContext) {}
}
