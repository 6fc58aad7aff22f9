import SwiftUI

/// The example app: one window showing ``SignInView``.
@main
struct PorticoExampleApp: App {
    var body: some Scene {
        WindowGroup {
            SignInView(configuration: ExampleConfiguration.fromLaunch())
        }
    }
}
