import PorticoHTTP

/// What a request to a page gets when the server's worker queue is full: a person in a browser
/// gets the "very busy" page in their language, any other client the server's plain 503 (the
/// one ``Router/overloaded(_:)`` leaves when the handler gives none).
///
/// Without it a flood showed people a line of plain English text ("Server is busy; try again
/// shortly"), whatever their language, with no layout and no advice. Both answers are 503 with
/// `Retry-After: 1`; both are rendered on the epoll thread without the store, so they cost next
/// to nothing while the flood lasts.
enum OverloadPage {
    static func register(on router: Router, environment: PageEnvironment) {
        router.overloaded { request in
            guard wantsPage(request) else { return nil }
            return Router.secured(
                ErrorPage.response(for: .overloaded, language: request.pageLanguage()), environment: environment)
        }
    }

    /// Whether the client asked for HTML (a browser's navigation does, `curl` and SDKs do not).
    static func wantsPage(_ request: Request) -> Bool {
        guard let accept = request.headers["Accept"]?.lowercased() else { return false }
        return accept.contains("text/html")
    }
}
