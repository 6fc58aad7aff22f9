import Foundation
import PorticoStore

/// The two mails a sign-up sends: the confirmation link to a new address, or, to an address
/// that already has an account, a notice that someone tried (with the ways back in).
///
/// Both are handed to the ``Mailer`` without waiting, so neither the mail server nor which of
/// the two was sent shows in the page's answer; a failure is logged, never shown.
enum SignupMail {
    /// The confirmation mail for `signup`, whose plain token is `token`. The link carries the
    /// sealed pending request (if any) and the page language, as the reset link does.
    static func link(
        for signup: PendingSignup, token: String, sealedRequest: String?, language: PageLanguage,
        environment: PageEnvironment
    ) -> MailMessage {
        var link = environment.issuer + SignupVerifyEndpoint.path + "?token=" + token
        if let sealedRequest { link += "&" + AuthorizationFlow.requestField + "=" + sealedRequest }
        if language != .english { link += "&ui_locales=" + language.rawValue }
        let text = SignupVerifyText.self
        return MailMessage(
            to: signup.email, subject: text.linkSubject[language],
            body: text.linkMail(
                name: signup.name, email: signup.email, link: link, hours: SignupVerifyEndpoint.linkLifetimeHours)[
                    language],
            date: signup.createdAt)
    }

    /// The "someone tried" notice for the owner of an address that has an account.
    static func notice(to user: UserRecord, at time: Date, language: PageLanguage, environment: PageEnvironment)
        -> MailMessage
    {
        let text = SignupVerifyText.self
        return MailMessage(
            to: user.email, subject: text.noticeSubject[language],
            body: text.noticeMail(
                name: user.name, email: user.email, loginLink: environment.issuer + AuthorizationFlow.loginPath,
                forgotLink: environment.issuer + PasswordForgotEndpoint.path)[language],
            date: time)
    }

    /// Hands `message` to the mailer and returns at once.
    static func send(_ message: MailMessage, environment: PageEnvironment) {
        environment.mailer.sendInBackground(message, what: "a sign-up")
    }
}
