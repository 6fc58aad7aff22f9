import Foundation
import PorticoCrypto
import PorticoStore

/// What happens besides the refusal when an authenticator code already used is presented again
/// at the second sign-in step (ASVS 2.8.5): an audit event every time, and one mail to the owner.
///
/// Only someone who got past the password reaches the second step, so a replayed code means
/// the password is known to someone and a code was overheard or phished: the owner should
/// change the password. (It is also the owner signing in twice with one code within a minute;
/// the mail says so.) The mail goes at most once per account within ``mailWindow``, counted
/// with the shared throttle table so every node agrees, so a replay loop cannot flood the
/// mailbox; the audit log keeps every attempt with the step and the address.
struct TwoStepReplay: Sendable {
    /// How long one replay mail stands for all further replays on the account.
    static let mailWindow: TimeInterval = 24 * 60 * 60

    /// The provider's store, mailer and clock.
    let environment: PageEnvironment

    /// Records the replay of `step` on `userID`'s account from `address`, and mails the owner
    /// unless a replay mail went out within ``mailWindow``.
    func record(userID: String, step: Int64, address: String, language: PageLanguage) throws {
        let now = environment.now()
        try environment.store.transaction { transaction in
            try transaction.append(
                AuditEvent(
                    occurredAt: now, actor: userID, action: "user.two_step_code_replayed", subject: userID,
                    details: (["step": .integer(step), "address": .string(address)] as JSONValue).jsonString))
        }
        let once = AttemptThrottle.Limit(key: "two-step-replay-mail:" + userID, maximum: 1, window: Self.mailWindow)
        guard case .allowed = try AttemptThrottle(environment: environment).attempt([once]),
            let user = try environment.store.read({ try $0.user(id: userID) })
        else { return }
        let message = MailMessage(
            to: user.email, subject: TwoStepText.replaySubject[language],
            body: TwoStepText.replayNotice(
                name: user.name, time: AccountPage.format(now, language: language),
                passwordLink: environment.issuer + PasswordChangeEndpoint.path)[language],
            date: now)
        environment.mailer.sendInBackground(message, what: "a two-step replay notice")
    }
}
