import XCTest

/// Signs in to `portico serve --demo` the way a person would: the branded button, the system's
/// "wants to use … to sign in" alert, Portico's sign-in and consent pages in the web sheet,
/// then the profile's name on screen, then sign-out.
///
/// The server comes from the test runner's environment (`.ci/apple example` passes
/// `TEST_RUNNER_PORTICO_ISSUER` and `TEST_RUNNER_PORTICO_CLIENT_ID` to xcodebuild, which hands
/// them to this process without the prefix); the person defaults to the demo's.
final class SignInUITests: XCTestCase {
    @MainActor
    func testSignInShowsTheProfileNameThenSignsOut() throws {
        continueAfterFailure = false
        let environment = ProcessInfo.processInfo.environment
        guard let issuer = environment["PORTICO_ISSUER"], let clientID = environment["PORTICO_CLIENT_ID"] else {
            XCTFail("PORTICO_ISSUER and PORTICO_CLIENT_ID are unset: run with TEST_RUNNER_PORTICO_ISSUER=… (.ci/apple)")
            return
        }
        let email = environment["PORTICO_EMAIL"] ?? "demo@example.com"
        let password = environment["PORTICO_PASSWORD"] ?? "portico-demo"
        let name = environment["PORTICO_NAME"] ?? "Dana Demo"

        let app = XCUIApplication()
        app.launchEnvironment["PORTICO_ISSUER"] = issuer
        app.launchEnvironment["PORTICO_CLIENT_ID"] = clientID
        app.launch()

        let login = app.buttons["login-with-portico"]
        XCTAssertTrue(login.waitForExistence(timeout: 15), "the Login with Portico button")
        login.tap()

        // ASWebAuthenticationSession asks first, in SpringBoard: "“Portico Example” Wants to Use
        // “127.0.0.1” to Sign In" with Cancel / Continue.
        let springboard = XCUIApplication(bundleIdentifier: "com.apple.springboard")
        let proceed = springboard.alerts.buttons["Continue"]
        XCTAssertTrue(proceed.waitForExistence(timeout: 15), "the system's sign-in alert")
        proceed.tap()

        // Portico's sign-in page in the sheet: the only e-mail and password fields on it.
        let web = app.webViews
        let emailField = web.textFields.firstMatch
        XCTAssertTrue(emailField.waitForExistence(timeout: 30), "the sign-in page's Email field")
        emailField.tap()
        emailField.typeText(email)
        let passwordField = web.secureTextFields.firstMatch
        XCTAssertTrue(passwordField.waitForExistence(timeout: 5), "the sign-in page's Password field")
        passwordField.tap()
        passwordField.typeText(password)
        web.buttons["Sign in"].tap()
        dismissSavePasswordPrompt(in: app)

        // The consent page: allow.
        let allow = web.buttons["Allow"]
        XCTAssertTrue(allow.waitForExistence(timeout: 30), "the consent page's Allow button")
        allow.tap()

        // Back in the app: the profile's name and e-mail.
        let shownName = app.staticTexts["user-name"]
        XCTAssertTrue(shownName.waitForExistence(timeout: 30), "the signed-in name (\(failureText(in: app)))")
        XCTAssertEqual(shownName.label, name)
        XCTAssertEqual(app.staticTexts["user-email"].label, email)

        app.buttons["sign-out"].tap()
        XCTAssertTrue(app.buttons["login-with-portico"].waitForExistence(timeout: 15), "the button after sign-out")
        XCTAssertFalse(app.staticTexts["user-name"].exists)
    }

    /// The password autofill's "Save Password?" sheet, which some simulators show after a
    /// form with a password field is sent; gone within two seconds or dismissed.
    @MainActor
    private func dismissSavePasswordPrompt(in app: XCUIApplication) {
        let notNow = app.buttons["Not Now"]
        if notNow.waitForExistence(timeout: 2) { notNow.tap() }
    }

    /// What the app shows as the failure, if anything, for the assertion's message.
    @MainActor
    private func failureText(in app: XCUIApplication) -> String {
        let failure = app.staticTexts["failure"]
        return failure.exists ? "the app says: " + failure.label : "no failure shown"
    }
}
