import Foundation

#if canImport(UIKit) && !os(watchOS)
    import UIKit
#endif

/// Calls back when the app becomes active again, where the platform says so.
///
/// On UIKit platforms it observes `UIApplication.didBecomeActiveNotification` (posted for scene
/// apps too when any scene activates); elsewhere there is no such event, and apps call
/// ``AccountLinkSession/applicationDidBecomeActive()`` themselves.
final class ActivationObserver: Sendable {
    private let token = LockedState<ObserverToken?>(nil)

    /// Starts observing; `body` runs on each activation.
    func start(_ body: @escaping @Sendable () -> Void) {
        #if canImport(UIKit) && !os(watchOS)
            let observer = NotificationCenter.default.addObserver(
                forName: UIApplication.didBecomeActiveNotification, object: nil, queue: nil
            ) { _ in body() }
            token.withLock { $0 = ObserverToken(observer: observer) }
        #endif
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
