import Foundation
import PorticoHTTP

/// Renders a ``PageProblem`` as a page a person understands: what happened, and what to do.
enum ErrorPage {
    /// The page for `problem`.
    static func response(for problem: PageProblem) -> Response {
        let (title, message) = words(for: problem)
        var content = "<h1>\(HTML.escape(title))</h1>\n"
        content += "<div class=\"alert\" role=\"alert\"><p>\(HTML.escape(message))</p></div>\n"
        content += "<p class=\"small\">\(HTML.escape(advice(for: problem)))</p>\n"
        return PageLayout.page(title: title, content: content, status: problem.status)
    }

    /// Runs `body`, turning a thrown ``PageProblem`` into its page and any other error into the
    /// generic failure page (logged to stderr), so no handler can answer a bare 500.
    static func guarding(_ body: () async throws -> Response) async -> Response {
        do {
            return try await body()
        } catch let problem as PageProblem {
            return response(for: problem)
        } catch {
            log(error)
            return response(for: .serverFailure)
        }
    }

    private static func log(_ error: any Error) {
        let line = #"{"level":"error","message":"page handler failed","error":\#(jsonString("\(error)"))}"# + "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    private static func jsonString(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20: escaped += String(format: "\\u%04x", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    private static func words(for problem: PageProblem) -> (title: String, message: String) {
        switch problem {
        case .unknownClient:
            return (
                "We can't sign you in to this app",
                "The app that sent you here is not registered with \(PageLayout.platformName), so we can't "
                    + "sign you in to it."
            )
        case .redirectNotRegistered(let app):
            return (
                "We can't send you back to \(app)",
                "\(app) asked us to send you to an address it has not registered with "
                    + "\(PageLayout.platformName). To keep your account safe, we stopped here."
            )
        case .redirectMissing(let app):
            return (
                "We can't send you back to \(app)",
                "\(app) did not say where to send you after signing in, and it has more than one address."
            )
        case .redirectNotAllowed(let app):
            return (
                "We can't send you back to \(app)",
                "\(app) asked us to send you to an address that this kind of app may not use. "
                    + "To keep your account safe, we stopped here."
            )
        case .malformedRequest(let app):
            return (
                "This sign-in request is not valid",
                "\(app.map { "The request from \($0)" } ?? "The request") was not put together correctly."
            )
        case .expiredRequest(let app):
            return (
                "This sign-in request has expired",
                "Too much time has passed since \(app ?? "the app") asked you to sign in."
            )
        case .invalidRequest:
            return (
                "This sign-in request is not valid",
                "The sign-in page was opened without a valid request from an app."
            )
        case .forgedForm(let app):
            return (
                "We couldn't confirm that this came from you",
                "The form you sent did not carry the security check it should have"
                    + (app.map { " for \($0)" } ?? "")
                    + ". This can happen when a page was open for a long time, or when cookies are blocked."
            )
        case .invalidLogoutRequest(let app):
            return (
                "This sign-out request is not valid",
                "\(app.map { "The request from \($0)" } ?? "The app's request") to sign you out could not be "
                    + "checked, so we did not act on it."
            )
        case .serverFailure:
            return (
                "Something went wrong on our side",
                "We could not finish this request. Nothing was shared with any app."
            )
        }
    }

    private static func advice(for problem: PageProblem) -> String {
        switch problem {
        case .unknownClient, .redirectNotRegistered, .redirectMissing, .redirectNotAllowed, .malformedRequest:
            "If you are the app's developer, check its client ID and redirect address. Otherwise, "
                + "go back to the app and contact its support."
        case .expiredRequest, .invalidRequest:
            "Go back to the app and choose to sign in again."
        case .forgedForm:
            "Make sure cookies are allowed for this site, then go back to the app and sign in again."
        case .invalidLogoutRequest:
            "You can still sign out of \(PageLayout.platformName) in Your Account (/account)."
        case .serverFailure:
            "Please try again in a moment."
        }
    }
}
