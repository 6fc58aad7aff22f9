import Foundation
import PorticoStore

/// The mail that tells a person their password was changed or reset (ASVS V2.5.5 / V3.7: a
/// notice after a credential change), so that someone who did not do it learns at once and
/// knows what to do.
///
/// Sent to the account's address after the change has committed, without waiting for
/// delivery (a slow mail server must not hold the page); a failure is logged, never shown.
enum PasswordNotice {
    /// Sends the notice for `user`'s password, changed at `time`.
    static func send(
        to user: UserRecord, at time: Date, byReset: Bool, language: PageLanguage, environment: PageEnvironment
    ) {
        let message = MailMessage(
            to: user.email, subject: PasswordChangeText.noticeSubject[language],
            body: PasswordChangeText.notice(
                name: user.name, time: AccountPage.format(time, language: language), byReset: byReset,
                accountLink: environment.issuer + AccountEndpoint.path,
                forgotLink: environment.issuer + PasswordForgotEndpoint.path)[language],
            date: time)
        environment.mailer.sendInBackground(message, what: "a password notice")
    }
}
