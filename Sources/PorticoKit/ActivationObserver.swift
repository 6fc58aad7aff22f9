import Foundation
import Synchronization

#if canImport(UIKit) && !os(watchOS)
    import UIKit
#endif

/// Calls back when the app becomes active again, where the platform says so.
///
/// On UIKit platforms it observes `UIApplication.didBecomeActiveNotification` (posted for scene
/// apps too when any scene activates); elsewhere there is no such event, and apps call
/// ``AccountLinkSession/applicationDidBecomeActive()`` themselves.
final class ActivationObserver: Sendable {
    private let token = Mutex<(any NSObjectProtocol & Sendable)?>(nil)

    /// Starts observing; `body` runs on each activation.
    func start(_ body: @escaping @Sendable () -> Void) {
        #if canImport(UIKit) && !os(watchOS)
            let observer = NotificationCenter.default.addObserver(
                forName: UIApplication.didBecomeActiveNotification, object: nil, queue: nil
            ) { _ in body() }
            token.withLock { $0 = observer as? any NSObjectProtocol & Sendable }
        #endif
    }

    deinit {
        if let observer = token.withLock({ $0 }) { NotificationCenter.default.removeObserver(observer) }
    }
}
