import PorticoHTTP

extension Router {
    /// Answers `HEAD` on `path` with 405 instead of running its `GET` handler.
    ///
    /// Why: a router answers `HEAD` with the `GET` handler minus the body, and the `GET` of a
    /// page that acts (consent and "Continue" go on to mint a code, logout signs out, the demo's
    /// callback redeems a code) would then act for a request whose answer nobody reads: a code
    /// in a `Location` header, a session ended by a link preview. No page needs `HEAD`.
    /// Public for the apps served beside the provider (``ProviderApp``), whose pages act too.
    public func refuseHead(_ path: String, allowing allowed: String = "GET, POST") {
        add(.head, path) { _ in
            var response = Response.text("Use GET or POST.", status: .methodNotAllowed)
            response.headers["Allow"] = allowed
            return response
        }
    }
}
