import Foundation

/// Whether an in-app web session (the system's sign-in sheet) is on screen in this process.
///
/// UIKit posts `didBecomeActive` when the sheet's system alert closes, while the sheet is still
/// up; the account link's "returned without acting" grace must not start then, so it asks here.
final class WebSessionPresence: Sendable {
    static let shared = WebSessionPresence()

    private let count = LockedState(0)

    /// Whether any web session is running now.
    var isPresenting: Bool { count.withLock { $0 > 0 } }

    /// Counts one session until its token ends (once, however often `end` is called).
    func begin() -> Token {
        count.withLock { $0 += 1 }
        return Token(presence: self)
    }

    /// One running session's mark.
    final class Token: Sendable {
        private let presence: WebSessionPresence
        private let ended = LockedState(false)

        fileprivate init(presence: WebSessionPresence) {
            self.presence = presence
        }

        /// Ends the mark; later calls do nothing.
        func end() {
            let first = ended.withLock { already -> Bool in
                defer { already = true }
                return !already
            }
            if first { presence.count.withLock { $0 -= 1 } }
        }
    }
}
