import PorticoHTTP

/// The pages people see: the authorization endpoint that leads to them, sign-in, consent,
/// device login, "Continue as", sign-out, Your Account, errors, the static information pages,
/// and the stylesheet and script.
enum PageRoutes {
    /// Registers every page route; `demo` says whether the home page links the demo app.
    ///
    /// - Throws: when the password settings cannot hash (see ``LoginEndpoint``).
    static func register(on router: Router, environment: PageEnvironment, demo: Bool) throws {
        HomePage.register(on: router, environment: environment, demo: demo)
        AuthorizationEndpoint.register(on: router, environment: environment)
        try LoginEndpoint(environment: environment).register(on: router)
        ConsentEndpoint(environment: environment).register(on: router)
        SignupEndpoint(environment: environment).register(on: router)
        PasswordForgotEndpoint(environment: environment).register(on: router)
        PasswordResetEndpoint(environment: environment).register(on: router)
        DeviceEndpoint(environment: environment).register(on: router)
        ContinueEndpoint(environment: environment).register(on: router)
        LogoutEndpoint(environment: environment).register(on: router)
        AccountEndpoint(environment: environment).register(on: router)
        DeveloperEndpoint(environment: environment).register(on: router)
        UnlinkEndpoint(environment: environment).register(on: router)
        PasswordChangeEndpoint(environment: environment).register(on: router)
        TwoStepEndpoint(environment: environment).register(on: router)
        TwoStepSignInEndpoint(environment: environment).register(on: router)
        TwoStepUndoEndpoint(environment: environment).register(on: router)
        PasskeyEndpoint(environment: environment).register(on: router)
        AccountCloseEndpoint(environment: environment).register(on: router)
        DataDownloadEndpoint(environment: environment).register(on: router)
        InfoPages.register(on: router)
        Assets.register(on: router)
        WebSDK.register(on: router)
        OverloadPage.register(on: router, environment: environment)
        FedCMRoutes.register(on: router, environment: environment)
    }
}
