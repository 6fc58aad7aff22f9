#if canImport(UIKit) && !os(watchOS) && !os(macOS)
    import UIKit

    extension UniversalLinkUserAgent {
        /// Tries the provider's companion app through `UIApplication.open` with
        /// `.universalLinksOnly` (it never opens Safari), then `fallback`. Not for app
        /// extensions, where `UIApplication.shared` is unavailable.
        @available(iOSApplicationExtension, unavailable)
        @available(macCatalystApplicationExtension, unavailable)
        @available(visionOSApplicationExtension, unavailable)
        public init(fallback: any UserAgent, returnGrace: Duration = .seconds(3), timeout: Duration = .seconds(600)) {
            self.init(fallback: fallback, returnGrace: returnGrace, timeout: timeout) { url in
                do {
                    try await BrowserOpener.openWithUIApplication(url, universalLinksOnly: true)
                    return true
                } catch {
                    return false
                }
            }
        }
    }
#endif
