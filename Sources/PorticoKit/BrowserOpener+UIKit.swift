#if canImport(UIKit) && !os(watchOS) && !os(macOS)
    import UIKit

    extension BrowserOpener {
        /// Safari (or the app that claims the URL), through `UIApplication.shared.open`. Not for
        /// app extensions, where `UIApplication.shared` is unavailable.
        @available(iOSApplicationExtension, unavailable)
        @available(macCatalystApplicationExtension, unavailable)
        @available(visionOSApplicationExtension, unavailable)
        public static var sharedApplication: BrowserOpener {
            BrowserOpener(isAvailable: { true }, body: { url in try await openWithUIApplication(url) })
        }

        /// Hands `url` to the system through `UIApplication.open`; with `universalLinksOnly` only
        /// an installed app that claims the universal link may take it (else it fails at once).
        /// Type-checked on Linux against apple/stubs, never run there.
        @available(iOSApplicationExtension, unavailable)
        @available(macCatalystApplicationExtension, unavailable)
        @available(visionOSApplicationExtension, unavailable)
        @MainActor
        static func openWithUIApplication(_ url: URL, universalLinksOnly: Bool = false) async throws {
            let options: [UIApplication.OpenExternalURLOptionsKey: Any] =
                universalLinksOnly ? [.universalLinksOnly: true] : [:]
            let opened = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                UIApplication.shared.open(url, options: options) { continuation.resume(returning: $0) }
            }
            guard opened else {
                throw launchFailure("the system would not open \(url.host ?? "the sign-in page")")
            }
        }
    }
#endif
