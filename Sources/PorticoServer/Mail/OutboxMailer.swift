import Foundation
import PorticoCrypto
import PorticoStore

/// The default ``Mailer``: writes each message as an RFC 5322 `.eml` file into an outbox folder
/// and logs one line about it (recipient, subject, file; never the body, which holds a live
/// reset link) to stderr.
///
/// Files are written to a temporary name and renamed, so a reader never sees half a message,
/// and are readable by the owner only (mode 0600, folder 0700): a reset link is a credential
/// for 30 minutes.
public struct OutboxMailer: Mailer {
    /// The folder messages are written to; created on first use.
    public let directory: String
    /// The `From` address.
    public let sender: String
    /// Whether to log a line per message.
    public let logs: Bool

    /// A mailer writing into `directory`.
    public init(directory: String, sender: String = "Portico <no-reply@localhost>", logs: Bool = true) {
        self.directory = directory
        self.sender = sender
        self.logs = logs
    }

    /// The outbox next to a database file (`portico-data/outbox` for the default
    /// `sqlite:./portico-data/portico.db`), or `./portico-data/outbox` for other databases and
    /// when the database is not known.
    public static func defaultDirectory(beside location: StoreLocation?) -> String {
        guard let folder = location?.localDirectory else { return "./portico-data/outbox" }
        return (folder as NSString).appendingPathComponent("outbox")
    }

    /// Writes `message` into the outbox.
    public func send(_ message: MailMessage) async throws {
        let manager = FileManager.default
        try manager.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let stamp = Self.stamp(message.date)
        let unique = Base64URL.encode(SecureRandom.bytes(count: 6))
        let name = "\(stamp)-\(unique).eml"
        let host = sender.split(separator: "@").last.map { String($0.filter { $0 != ">" }) } ?? "localhost"
        let text = message.rfc5322Text(from: sender, messageID: "\(stamp).\(unique)@\(host)")
        let final = (directory as NSString).appendingPathComponent(name)
        let temporary = (directory as NSString).appendingPathComponent(".\(name).tmp")
        guard manager.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown) }
        try manager.moveItem(atPath: temporary, toPath: final)
        if logs { Self.log(to: message.to, subject: message.subject, file: final) }
    }

    /// `20261129T180000Z`: sorts in the order messages were written.
    private static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }

    private static func log(to: String, subject: String, file: String) {
        let line: JSONValue = [
            "level": "info", "message": "mail written to outbox", "to": .string(to), "subject": .string(subject),
            "file": .string(file),
        ]
        FileHandle.standardError.write(Data((line.jsonString + "\n").utf8))
    }
}
