import PorticoHTTP

/// Something that stops a sign-in and can only be told to the person, not to the app: the
/// app is unknown, its redirect address cannot be trusted, the sign-in request is stale, or a
/// form failed its CSRF check.
///
/// Handlers throw these; ``ErrorPage`` turns each into a page in plain words, naming the app
/// when it is known.
enum PageProblem: Error, Equatable {
    /// No client with the given `client_id` (or none given).
    case unknownClient
    /// The `client_id` is the URL of a client metadata document that could not be fetched or is
    /// not acceptable; `reason` (in English: it is for the app's developer) says why.
    case unusableClientMetadata(reason: String)
    /// The platform's operator has suspended the app (`portico client suspend`).
    case suspendedClient(appName: String)
    /// The app is not verified and has already signed in as many people as such apps may.
    case unverifiedAppLimit(appName: String)
    /// The request's `redirect_uri` is not registered for the app.
    case redirectNotRegistered(appName: String)
    /// The request named no redirect URI and the app has several.
    case redirectMissing(appName: String)
    /// The redirect URI is registered but may not be used (custom scheme for a server app).
    case redirectNotAllowed(appName: String)
    /// The request is broken in a way that cannot be sent back to the app.
    case malformedRequest(appName: String?)
    /// The sign-in request has expired.
    case expiredRequest(appName: String?)
    /// The sign-in request token is missing or not one of ours.
    case invalidRequest
    /// A form came without a valid CSRF token.
    case forgedForm(appName: String?)
    /// An RP-initiated logout request that cannot be checked (a bad `id_token_hint`, an unknown
    /// or mismatched client, a return address without a client).
    case invalidLogoutRequest(appName: String?)
    /// The server failed (database trouble); details go to the log, not the page.
    case serverFailure
    /// The database is busy or cannot be reached at the moment (a restart, a failover): the
    /// same request is likely to work in a few seconds, so the page says so and answers 503
    /// with `Retry-After` rather than a 500.
    case temporarilyUnavailable
    /// Too many password checks at once (a sign-in flood, see ``PasswordCheckGate``): this one
    /// was not checked at all, so trying again in a moment is safe and likely to work; 503 with
    /// `Retry-After`.
    case busy
    /// The server's queue for pages is full (a flood of requests, see
    /// `ServerConfiguration.maxPendingAsyncRequests`): nothing of this request was done, so
    /// reloading in a moment is safe; 503 with `Retry-After`. Answered by ``OverloadPage``.
    case overloaded

    /// The page problem for a redirect URI that failed the policy.
    init(_ problem: RedirectURIPolicy.Problem, appName: String) {
        switch problem {
        case .missing: self = .redirectMissing(appName: appName)
        case .notRegistered: self = .redirectNotRegistered(appName: appName)
        case .notAllowed: self = .redirectNotAllowed(appName: appName)
        }
    }

    /// The HTTP status: 403 for a failed CSRF check, 500 for our failures, 503 while the
    /// database is away or too busy, else 400.
    var status: HTTPStatus {
        switch self {
        case .forgedForm: .forbidden
        case .serverFailure: .internalServerError
        case .temporarilyUnavailable, .busy, .overloaded: .serviceUnavailable
        default: .badRequest
        }
    }
}

extension Request {
    /// The posted form of a page, or the page problem a person sees when it cannot be read.
    func pageForm() throws(PageProblem) -> FormParameters {
        do {
            return try form()
        } catch {
            throw .malformedRequest(appName: nil)
        }
    }
}
