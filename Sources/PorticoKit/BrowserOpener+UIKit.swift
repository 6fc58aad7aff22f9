#if canImport(UIKit) && !os(watchOS) && !os(macOS)
    import UIKit

    extension BrowserOpener {
        /// Hands `url` to the system (Safari, or the app that claims it) through
        /// `UIApplication.open`. Not compiled or tested on Linux.
        @MainActor
        static func openWithUIApplication(_ url: URL) async throws {
            guard await UIApplication.shared.open(url) else {
                throw launchFailure("the system would not open \(url.host ?? "the sign-in page")")
            }
        }
    }
#endif
