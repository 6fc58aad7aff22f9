import Foundation
import PorticoStore

/// The mail that tells a person a passkey was added to or removed from their account, sent
/// after the change has committed, without waiting for delivery; a failure is logged, never shown.
enum PasskeyNotice {
    /// Sends the notice for `user` about the passkey called `name`, changed at `time`.
    static func send(
        to user: UserRecord, added: Bool, name: String, at time: Date, language: PageLanguage,
        environment: PageEnvironment
    ) {
        let when = AccountPage.format(time, language: language)
        let link = environment.issuer + AccountEndpoint.path + "#passkeys"
        let subject = added ? PasskeyText.addedSubject : PasskeyText.removedSubject
        let body =
            added
            ? PasskeyText.addedBody(name: user.name, passkey: name, time: when, link: link)
            : PasskeyText.removedBody(name: user.name, passkey: name, time: when, link: link)
        let message = MailMessage(to: user.email, subject: subject[language], body: body[language], date: time)
        environment.mailer.sendInBackground(message, what: "a passkey notice")
    }
}
