import Foundation

#if canImport(UIKit) && !os(watchOS)
    import UIKit
#endif

/// Calls back when the app becomes active again, where the platform says so.
///
/// On UIKit platforms it observes `UIApplication.didBecomeActiveNotification` (posted for scene
/// apps too when any scene activates); elsewhere there is no such event, and apps call
/// ``AccountLinkSession/applicationDidBecomeActive()`` themselves.
///
/// With ``willEnterForeground`` it observes the return from the background instead (after the
/// device was locked, or the person switched apps), which a closing system alert never posts.
final class ActivationObserver: Sendable {
    private let token = LockedState<ObserverToken?>(nil)
    private let name: Notification.Name?

    #if canImport(UIKit) && !os(watchOS)
        /// The app became active (also when a system alert over it closed).
        static let didBecomeActive: Notification.Name? = UIApplication.didBecomeActiveNotification
        /// The app came back from the background.
        static let willEnterForeground: Notification.Name? = UIApplication.willEnterForegroundNotification
    #else
        /// No such event on this platform.
        static let didBecomeActive: Notification.Name? = nil
        /// No such event on this platform.
        static let willEnterForeground: Notification.Name? = nil
    #endif

    /// An observer of `name` (by default the app becoming active); nil observes nothing.
    init(name: Notification.Name? = ActivationObserver.didBecomeActive) {
        self.name = name
    }

    /// Starts observing; `body` runs on each notification.
    func start(_ body: @escaping @Sendable () -> Void) {
        guard let name else { return }
        let observer = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { _ in body() }
        token.withLock { $0 = ObserverToken(observer: observer) }
    }

    deinit {
        if let token = token.withLock({ $0 }) { NotificationCenter.default.removeObserver(token.observer) }
    }
}

/// The opaque object `addObserver(forName:object:queue:using:)` returns. It is not `Sendable` in
/// Apple's SDK, but it is only handed back to `removeObserver(_:)`, which may be called from
/// any thread; a conditional cast to `Sendable` cannot express that (Sendable is a marker
/// protocol), so the box states it.
private struct ObserverToken: @unchecked Sendable {
    let observer: any NSObjectProtocol
}
