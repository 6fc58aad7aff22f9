import Foundation

/// Where the example signs in: the issuer and client id come from the launch (so a UI test
/// can point the app at the server its workflow started), the redirect URI is the app's own.
///
/// Read from `-PorticoIssuer URL -PorticoClientID ID` launch arguments, else from the
/// `PORTICO_ISSUER` / `PORTICO_CLIENT_ID` environment variables (Xcode's scheme editor, or
/// `XCUIApplication.launchEnvironment`), else a local `portico serve` on port 8080.
struct ExampleConfiguration: Sendable {
    /// The redirect URI registered for the example's public client: a reverse-domain
    /// private-use scheme (RFC 8252 §7.1), the one Info.plist declares.
    static let redirectURI = URL(string: "com.example.porticoexample:/oauth2redirect")

    /// The provider's issuer identifier.
    var issuer: URL
    /// The example's client id at that provider.
    var clientID: String

    /// The configuration of this launch, or nil (with the reason) when the issuer is not a URL.
    static func fromLaunch(
        arguments: [String] = ProcessInfo.processInfo.arguments,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Result<ExampleConfiguration, ExampleConfigurationError> {
        let issuerText =
            value(after: "-PorticoIssuer", in: arguments) ?? environment["PORTICO_ISSUER"] ?? "http://127.0.0.1:8080"
        let clientID =
            value(after: "-PorticoClientID", in: arguments) ?? environment["PORTICO_CLIENT_ID"] ?? "portico-ios-example"
        guard let issuer = URL(string: issuerText), let scheme = issuer.scheme, ["http", "https"].contains(scheme),
            issuer.host != nil
        else {
            return .failure(ExampleConfigurationError(message: "The issuer '\(issuerText)' is not an http(s) URL."))
        }
        guard !clientID.isEmpty else {
            return .failure(ExampleConfigurationError(message: "The client id is empty."))
        }
        return .success(ExampleConfiguration(issuer: issuer, clientID: clientID))
    }

    /// The argument after `name`, if there is one.
    private static func value(after name: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: name), arguments.indices.contains(index + 1) else { return nil }
        return arguments[index + 1]
    }
}

/// Why the launch's configuration cannot be used, shown in place of the button.
struct ExampleConfigurationError: Error, Sendable {
    /// One line for the screen.
    var message: String
}
