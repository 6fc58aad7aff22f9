import PorticoHTTP

/// The pages people see: the authorization endpoint that leads to them, sign-in, consent,
/// "Continue as", sign-out, Your Account, errors, the static information pages, and the
/// stylesheet and script.
enum PageRoutes {
    /// Registers every page route.
    static func register(on router: Router, context: ProviderContext) {
        AuthorizationEndpoint.register(on: router, context: context)
        LoginEndpoint(context: context).register(on: router)
        ConsentEndpoint(context: context).register(on: router)
        ContinueEndpoint(context: context).register(on: router)
        LogoutEndpoint(context: context).register(on: router)
        AccountEndpoint(context: context).register(on: router)
        InfoPages.register(on: router)
        Assets.register(on: router)
    }
}
