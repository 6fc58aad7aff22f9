#if canImport(UIKit)
    import UIKit

    extension UIButton {
        /// The branded "Login with Portico" button for UIKit, in English or Chinese as
        /// ``LoginButtonContent`` decides: the title, Portico's colours, and a VoiceOver hint.
        ///
        /// It only draws the button; `action` signs in, typically with
        /// ``AuthorizationManager/authorize(_:)``.
        @MainActor
        public static func loginWithPortico(
            content: LoginButtonContent = LoginButtonContent(), action: @escaping @MainActor () -> Void
        ) -> UIButton {
            var configuration = UIButton.Configuration.filled()
            configuration.title = content.title
            configuration.baseBackgroundColor = uiColor(LoginButtonContent.background)
            configuration.baseForegroundColor = uiColor(LoginButtonContent.foreground)
            // UIActionHandler is not main-actor isolated in its type, but UIKit calls it on
            // the main thread.
            let button = UIButton(
                configuration: configuration,
                primaryAction: UIAction { _ in
                    MainActor.assumeIsolated { action() }
                })
            button.accessibilityHint = content.accessibilityHint
            return button
        }

        @MainActor
        private static func uiColor(_ color: LoginButtonContent.Color) -> UIColor {
            UIColor(red: color.red, green: color.green, blue: color.blue, alpha: 1)
        }
    }
#endif
