import PorticoHTTP

/// A form POSTed from Your Account (its actions, Unlink): the signed-in person and the form,
/// whose CSRF token must be the one bound to that person's session.
///
/// One place, so that every Your Account action refuses a forged form the same way and sends
/// a visitor whose session has ended to sign in.
enum AccountForm {
    /// The form of `request` and who sent it; nil when nobody is signed in (answer with a
    /// redirect to ``AccountEndpoint/signInLocation``).
    ///
    /// - Throws: ``PageProblem/forgedForm(appName:)`` when the CSRF token does not fit the session,
    ///   and the page problems of reading a form.
    static func read(_ request: Request, environment: PageEnvironment) throws -> (
        form: FormParameters, signedIn: SignInSession
    )? {
        let form = try request.pageForm()
        guard let signedIn = try SignInSession.current(in: request, environment: environment) else { return nil }
        let purpose = CSRFProtection.accountPurpose(sessionHashedID: signedIn.session.hashedID)
        guard CSRFProtection.verify(form, request: request, purpose: purpose, secure: environment.usesHTTPS) else {
            throw PageProblem.forgedForm(appName: nil)
        }
        return (form, signedIn)
    }
}
