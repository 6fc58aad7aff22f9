import Foundation
import PorticoHTTP
import PorticoStore

/// What every way of signing in does once the person is authenticated: start the browser
/// session (recording its `amr` when more than a password was used), then continue the app's
/// authorization or go back where the sign-in was asked for.
enum SignInCompletion {
    /// Signs `user` in and returns the response that continues. `alongside` commits with the
    /// session, or stops it (``SignInSession/start(for:persistent:methods:replacing:request:environment:alongside:)``).
    static func finish(
        user: UserRecord, persistent: Bool, methods: [String], pending: PendingAuthorizationRequest?,
        returnPath: String?, request: Request, environment: PageEnvironment,
        alongside: (any StoreTransaction) throws -> Void = { _ in }
    ) throws -> Response {
        let (signedIn, cookie) = try SignInSession.start(
            for: user, persistent: persistent, methods: methods,
            replacing: request.cookies[SignInSession.cookieName(environment)], request: request,
            environment: environment, alongside: alongside)
        var response: Response
        if let pending {
            response = try AuthorizationFlow.next(
                for: pending.request, client: pending.client, signedIn: signedIn, personActed: true,
                environment: environment, status: .seeOther)
        } else {
            let target = ReturnPath.validated(returnPath) ?? ReturnPath.fallback
            response = PageLayout.redirect(to: target, status: .seeOther)
        }
        response.setCookie(cookie)
        LoginStatus.signedIn(&response, token: signedIn.token, session: signedIn.session, environment: environment)
        // The password was just entered: no "Continue as" until the browser restarts.
        response.setCookie(ReturnConfirmation.cookie(for: signedIn, secure: environment.usesHTTPS))
        return response
    }
}
