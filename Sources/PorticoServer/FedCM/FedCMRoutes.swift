import PorticoHTTP

/// FedCM, browser-mediated sign-in on the web (DESIGN, "FedCM"), composed in one place: the
/// well-known file, the config, the icon, the accounts, client metadata, assertion and
/// disconnect endpoints, and the popups (`login_url`, `continue_on`) with their script.
enum FedCMRoutes {
    /// Registers every FedCM route; they read the browser's session, so they get the pages' parts.
    static func register(on router: Router, environment: PageEnvironment) {
        router.get(FedCMConfiguration.wellKnownPath) { request in
            WebIdentityRequest.answer(request, issuer: environment.issuer) {
                FedCMConfiguration.json(FedCMConfiguration.wellKnown(issuer: environment.issuer))
            }
        }
        router.get(FedCMConfiguration.configPath) { request in
            WebIdentityRequest.answer(request, issuer: environment.issuer) {
                FedCMConfiguration.json(FedCMConfiguration.config(issuer: environment.issuer))
            }
        }
        router.get(FedCMConfiguration.iconPath) { FedCMConfiguration.icon.response(to: $0) }
        router.get(FedCMScript.path) { FedCMScript.asset.response(to: $0) }
        FedCMAccountsEndpoint(environment: environment).register(on: router)
        FedCMClientMetadataEndpoint(environment: environment).register(on: router)
        FedCMAssertionEndpoint(environment: environment).register(on: router)
        FedCMDisconnectEndpoint(environment: environment).register(on: router)
        FedCMLoginEndpoint(environment: environment).register(on: router)
        FedCMContinueEndpoint(environment: environment).register(on: router)
    }
}
