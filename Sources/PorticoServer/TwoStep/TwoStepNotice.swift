import Foundation
import PorticoStore

/// The mail that tells a person two-step verification was turned on or off on their account
/// (as ``PasswordNotice`` does for the password), sent after the change has committed, without
/// waiting for delivery; a failure is logged, never shown.
enum TwoStepNotice {
    /// Sends the notice for `user`, changed at `time`; `undoLink` (turning on only) is the
    /// owner's way to turn it off again when it was not them (``TwoStepUndoLink``).
    static func send(
        to user: UserRecord, enabled: Bool, at time: Date, language: PageLanguage, environment: PageEnvironment,
        undoLink: String? = nil
    ) {
        let message = MailMessage(
            to: user.email, subject: TwoStepText.noticeSubject(enabled: enabled)[language],
            body: TwoStepText.notice(
                name: user.name, time: AccountPage.format(time, language: language), enabled: enabled,
                accountLink: environment.issuer + AccountEndpoint.path, undoLink: undoLink)[language],
            date: time)
        environment.mailer.sendInBackground(message, what: "a two-step notice")
    }
}
