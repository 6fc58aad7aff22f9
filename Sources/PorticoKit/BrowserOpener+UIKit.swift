#if canImport(UIKit) && !os(watchOS) && !os(macOS)
    import UIKit

    extension BrowserOpener {
        /// Hands `url` to the system (Safari, or the app that claims it) through
        /// `UIApplication.open`. Not compiled or tested on Linux.
        @MainActor
        static func openWithUIApplication(_ url: URL) async throws {
            let opened = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                UIApplication.shared.open(url, options: [:]) { continuation.resume(returning: $0) }
            }
            guard opened else {
                throw launchFailure("the system would not open \(url.host ?? "the sign-in page")")
            }
        }
    }
#endif
