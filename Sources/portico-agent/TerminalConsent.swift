import Foundation
import PorticoKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// When `serve` runs on a terminal, it asks there too: each new consent is shown with its
/// question, and a `y` or `n` line answers the oldest one shown.
final class TerminalConsent: Sendable {
    let desk: ConsentDesk
    let text: AgentText
    let person: @Sendable () -> String

    init(desk: ConsentDesk, text: AgentText, person: @escaping @Sendable () -> String) {
        self.desk = desk
        self.text = text
        self.person = person
    }

    /// Whether standard input and output are a terminal.
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// Shows new consents and reads answers on a thread of its own.
    func start() {
        desk.onAdded.withLock { handler in
            handler = { [self] entry in
                let consent = entry.consent
                let view = PendingConsentView(
                    id: entry.id, clientName: consent.clientName, kind: consent.kind,
                    descriptions: consent.permissions.map(\.description))
                Self.write("\n" + text.question(view, person: consent.personName ?? person()))
            }
        }
        Thread.detachNewThread { [self] in
            while let line = readLine(strippingNewline: true) {
                let answer = line.trimmingCharacters(in: .whitespaces).lowercased()
                guard let first = desk.waiting.first else { continue }
                let allow: Bool
                switch answer {
                case "y", "yes", "是", "允许": allow = true
                case "n", "no", "否", "拒绝": allow = false
                default: continue
                }
                if desk.decide(first.id, allow: allow) {
                    Self.write(text.decided(allow, clientName: first.consent.clientName) + "\n")
                }
            }
        }
    }

    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
