import PorticoHTTP

/// `--demo` only: a demo app whose redirect is a built-in `/demo/callback` page.
enum DemoRoutes {
    static func register(on router: Router, context: ProviderContext) {}
}
