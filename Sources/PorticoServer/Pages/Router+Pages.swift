import PorticoHTTP

extension Router {
    /// A page at `path`: `GET` shows it and `POST` takes its form, both off the HTTP threads (pages
    /// read the store and may hash passwords) and both guarded, so a thrown ``PageProblem``
    /// becomes its error page in the person's language and nothing answers a bare 500. `HEAD` is
    /// refused (``refuseHead(_:allowing:)``): several pages' `GET` acts.
    func page(
        _ path: String, show: @escaping @Sendable (Request) throws -> Response,
        submit: @escaping @Sendable (Request) throws -> Response
    ) {
        getAsync(path) { request in await ErrorPage.guarding(request) { try show(request) } }
        postAsync(path) { request in await ErrorPage.guarding(request) { try submit(request) } }
        refuseHead(path)
    }
}
