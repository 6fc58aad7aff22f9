import Foundation

extension ProviderHarness {
    /// The messages in the outbox, oldest first, once there are at least `count` (mail is sent
    /// after the page answers, so it may take a moment); throws after 10 seconds.
    public func outboxMessages(atLeast count: Int) async throws -> [String] {
        for _ in 0..<200 {
            let messages = outboxFiles()
            if messages.count >= count {
                return try messages.map { try String(contentsOf: outbox.appendingPathComponent($0), encoding: .utf8) }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HarnessFailure("the outbox never held \(count) message(s)")
    }

    /// Every message in the outbox once one of them contains `text`. Mails are written in the
    /// background, so a count alone can be reached by earlier mails before the one a test waits
    /// for (a replay notice before "turned off") — wait for the mail itself.
    public func outboxMessages(containing text: String) async throws -> [String] {
        for _ in 0..<200 {
            let messages = try outboxFiles().map {
                try String(contentsOf: outbox.appendingPathComponent($0), encoding: .utf8)
            }
            if messages.contains(where: { $0.contains(text) }) { return messages }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HarnessFailure("no message in the outbox contains \(text.debugDescription)")
    }

    /// The number of messages in the outbox now.
    public var outboxCount: Int { outboxFiles().count }

    private func outboxFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: outbox.path)) ?? []).filter { $0.hasSuffix(".eml") }
            .sorted()
    }
}
