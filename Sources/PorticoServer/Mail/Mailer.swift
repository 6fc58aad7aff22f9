/// Delivers the e-mails the provider sends people (password-reset links).
///
/// A protocol so that delivery can change without touching the pages: the default
/// ``OutboxMailer`` writes each message to a folder (for development, tests and operators who
/// forward the folder with their own mail system); an SMTP mailer can come later. Sending is
/// async and callers do not wait for it before answering, so a slow mail server never shows in
/// a page's response time (which would tell whether an account exists).
public protocol Mailer: Sendable {
    /// Delivers `message`, or throws why it could not.
    func send(_ message: MailMessage) async throws
}
