#if canImport(SwiftUI)
    import SwiftUI

    /// The branded "Login with Portico" button for SwiftUI, in English or Chinese as
    /// ``LoginButtonContent`` decides: the title, Portico's colour, and a VoiceOver hint.
    ///
    /// It only draws the button; `action` signs in, typically with
    /// ``AuthorizationManager/authorize(_:)``:
    ///
    /// ```swift
    /// LoginWithPorticoButton { Task { try await manager.authorize(request) } }
    /// ```
    public struct LoginWithPorticoButton: View {
        private let content: LoginButtonContent
        private let action: @MainActor () -> Void

        /// A button in the person's language (or the one `content` names) that runs `action`.
        public init(
            content: LoginButtonContent = LoginButtonContent(), action: @escaping @MainActor () -> Void
        ) {
            self.content = content
            self.action = action
        }

        /// The button: bordered, prominent, tinted with Portico's colour.
        public var body: some View {
            let background = LoginButtonContent.background
            Button(action: action) {
                Text(verbatim: content.title)
            }
            .buttonStyle(.borderedProminent)
            .tint(Color(red: background.red, green: background.green, blue: background.blue))
            .accessibilityHint(Text(verbatim: content.accessibilityHint))
        }
    }
#endif
