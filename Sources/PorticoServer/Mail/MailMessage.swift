import Foundation

/// One plain-text e-mail the provider sends a person (today: a password-reset link).
public struct MailMessage: Sendable, Hashable {
    /// The recipient's address.
    public var to: String
    /// The subject line.
    public var subject: String
    /// The plain-text body.
    public var body: String
    /// When it was written.
    public var date: Date

    /// A message with these parts.
    public init(to: String, subject: String, body: String, date: Date = Date()) {
        self.to = to
        self.subject = subject
        self.body = body
        self.date = date
    }

    /// The message in Internet Message Format (RFC 5322): header fields, a blank line, the body,
    /// with CRLF line endings and UTF-8 text. Line breaks in header values are removed, so no
    /// value can add a header field.
    public func rfc5322Text(from sender: String, messageID: String) -> String {
        func field(_ value: String) -> String {
            String(value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" }.map(Character.init))
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        let header = [
            "From: \(field(sender))",
            "To: \(field(to))",
            "Subject: \(field(subject))",
            "Date: \(formatter.string(from: date))",
            "Message-ID: <\(field(messageID))>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: 8bit",
        ]
        let lines = body.replacingOccurrences(of: "\r\n", with: "\n").split(
            separator: "\n", omittingEmptySubsequences: false)
        return header.joined(separator: "\r\n") + "\r\n\r\n" + lines.joined(separator: "\r\n") + "\r\n"
    }
}
