import Foundation
import PorticoCrypto

extension Mailer {
    /// Hands `message` to this mailer and returns at once: a page never waits for delivery (a
    /// slow mail server would show in its response time, and so tell whether an account
    /// exists). A failure is logged as one line naming `what`, never shown to the person.
    func sendInBackground(_ message: MailMessage, what: String) {
        Task.detached {
            do {
                try await self.send(message)
            } catch {
                let line: JSONValue = ["level": "error", "message": .string("sending \(what) mail failed")]
                FileHandle.standardError.write(Data((line.jsonString + "\n").utf8))
            }
        }
    }
}
