import PorticoHTTP

/// The pages people see: the authorization endpoint that leads to them, sign-in, consent,
/// device login, "Continue as", sign-out, Your Account, errors, the static information pages,
/// and the stylesheet and script.
enum PageRoutes {
    /// Registers every page route; `demo` says whether the home page links the demo app.
    ///
    /// - Throws: when the password settings cannot hash (see ``LoginEndpoint``).
    static func register(on router: Router, context: ProviderContext, demo: Bool) throws {
        HomePage.register(on: router, context: context, demo: demo)
        AuthorizationEndpoint.register(on: router, context: context)
        try LoginEndpoint(context: context).register(on: router)
        ConsentEndpoint(context: context).register(on: router)
        SignupEndpoint(context: context).register(on: router)
        PasswordForgotEndpoint(context: context).register(on: router)
        PasswordResetEndpoint(context: context).register(on: router)
        DeviceEndpoint(context: context).register(on: router)
        ContinueEndpoint(context: context).register(on: router)
        LogoutEndpoint(context: context).register(on: router)
        AccountEndpoint(context: context).register(on: router)
        UnlinkEndpoint(context: context).register(on: router)
        PasswordChangeEndpoint(context: context).register(on: router)
        TwoStepEndpoint(context: context).register(on: router)
        TwoStepSignInEndpoint(context: context).register(on: router)
        TwoStepUndoEndpoint(context: context).register(on: router)
        InfoPages.register(on: router)
        Assets.register(on: router)
        OverloadPage.register(on: router, context: context)
    }
}
