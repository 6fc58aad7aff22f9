import Foundation
import PorticoStore

/// The mail that confirms a person closed their account, to the address it had, sent after
/// the closure has committed, without waiting for delivery; a failure is logged, never shown.
/// Someone who did not close it learns at once.
enum AccountClosedNotice {
    /// Sends the confirmation for `user`'s account, closed at `time`.
    static func send(to user: UserRecord, at time: Date, language: PageLanguage, environment: PageEnvironment) {
        let message = MailMessage(
            to: user.email, subject: AccountCloseText.mailSubject[language],
            body: AccountCloseText.mailBody(name: user.name, time: AccountPage.format(time, language: language))[
                language], date: time)
        environment.mailer.sendInBackground(message, what: "an account-closed notice")
    }
}
