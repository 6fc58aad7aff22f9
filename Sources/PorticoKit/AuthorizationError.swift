import Foundation

/// Why an authorization, a token refresh, a profile fetch or a sign-out failed.
///
/// One struct over a private code enum (the jwt-kit and async-http-client way): new failure
/// kinds can be added later without breaking an app's exhaustive `switch`. Compare ``code``
/// with the static members of ``Code``; the OAuth `error` and `error_description` the provider
/// sent, and its `Retry-After` hint, ride along when there were any.
public struct AuthorizationError: LocalizedError, Sendable, CustomStringConvertible {
    /// The kind of failure; compare it with the static members, for example
    /// `error.code == .userCancelled`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable {
            case userCancelled = "user cancelled"
            case cancelled = "cancelled"
            case accessDenied = "access denied"
            case authorizationRequired = "authorization required"
            case serverError = "server error"
            case network = "network failure"
            case storage = "token storage failure"
            case invalidInput = "invalid input"
            case unauthorizedClient = "unauthorized client"
            case stateMismatch = "state mismatch"
            case issuerMismatch = "issuer mismatch"
            case invalidResponse = "invalid response"
            case timedOut = "timed out"
        }

        fileprivate let base: Base

        fileprivate init(_ base: Base) {
            self.base = base
        }

        /// The person closed the sign-in or came back to the app without finishing it.
        public static let userCancelled = Code(.userCancelled)
        /// The app cancelled the task that was authorizing; told apart from the person's cancel.
        public static let cancelled = Code(.cancelled)
        /// The person declined the consent (`access_denied`).
        public static let accessDenied = Code(.accessDenied)
        /// No usable grant: nobody signed in, the refresh token was rejected, or `.never` could
        /// not proceed without showing a page. Authorize interactively to continue.
        public static let authorizationRequired = Code(.authorizationRequired)
        /// The provider answered with an OAuth error not covered by a more specific code; see
        /// ``AuthorizationError/oauthError``.
        public static let serverError = Code(.serverError)
        /// The provider could not be reached, or answered with a transport-level failure. Any
        /// stored grant is kept, so retrying later may succeed.
        public static let network = Code(.network)
        /// The token store could not be read or written (or refused an unsafe file).
        public static let storage = Code(.storage)
        /// The request itself is unusable (no scopes, a malformed URL, a missing endpoint).
        public static let invalidInput = Code(.invalidInput)
        /// The provider does not know this client or does not let it do what was asked.
        public static let unauthorizedClient = Code(.unauthorizedClient)
        /// The callback's `state` is not the one this authorization sent: possibly forged.
        public static let stateMismatch = Code(.stateMismatch)
        /// The callback's or a token's issuer is not the provider's (RFC 9207 mix-up defence).
        public static let issuerMismatch = Code(.issuerMismatch)
        /// The provider's answer could not be understood or failed verification.
        public static let invalidResponse = Code(.invalidResponse)
        /// Nothing happened within the allowed time (the browser never came back, a device code
        /// expired, a refresh hung).
        public static let timedOut = Code(.timedOut)

        /// The code in plain words.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// The OAuth `error` value the provider sent, if any (for example `invalid_scope`).
    public let oauthError: String?
    /// The provider's `error_description`, if any.
    public let oauthErrorDescription: String?
    /// How long the provider asked to wait before trying again (`Retry-After`), if it said.
    public let retryAfter: TimeInterval?
    /// A readable explanation, without any token in it.
    public let message: String
    /// The error this one wraps (a `URLError`, a file-system error), if any.
    public let underlyingError: (any Error)?

    init(
        _ code: Code, _ message: String, oauthError: String? = nil, oauthErrorDescription: String? = nil,
        retryAfter: TimeInterval? = nil, underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.oauthError = oauthError
        self.oauthErrorDescription = oauthErrorDescription
        self.retryAfter = retryAfter
        self.underlyingError = underlyingError
    }

    /// One line: the code, the message and the provider's error, if any.
    public var description: String {
        var text = "\(code): \(message)"
        if let oauthError {
            text += " (\(oauthError)"
            if let oauthErrorDescription, !oauthErrorDescription.isEmpty { text += ": \(oauthErrorDescription)" }
            text += ")"
        }
        if let retryAfter { text += "; retry after \(Int(retryAfter.rounded(.up))) s" }
        return text
    }

    /// An OAuth error answer from the provider, mapped to the most specific code.
    static func oauth(_ error: String, description: String?, retryAfter: TimeInterval? = nil) -> AuthorizationError {
        let code: Code
        switch error {
        case "access_denied": code = .accessDenied
        case "unauthorized_client", "invalid_client": code = .unauthorizedClient
        case "invalid_grant", "login_required", "consent_required", "interaction_required",
            "account_selection_required":
            code = .authorizationRequired
        case "expired_token": code = .timedOut
        case "temporarily_unavailable": code = .network
        default: code = .serverError
        }
        return AuthorizationError(
            code, "the provider answered \(error)", oauthError: error, oauthErrorDescription: description,
            retryAfter: retryAfter)
    }

    /// The same one line, for apps that show `localizedDescription`.
    public var errorDescription: String? { description }

    /// The error for a cancelled task: the app's own cancel, not the person's.
    static let taskCancelled = AuthorizationError(.cancelled, "the authorization was cancelled by the app")

    /// `error` as an ``AuthorizationError``: itself, a task cancellation, or a wrapped failure of `code`.
    static func wrap(_ error: any Error, as code: Code, _ message: String) -> AuthorizationError {
        if let error = error as? AuthorizationError { return error }
        if error is CancellationError { return taskCancelled }
        return AuthorizationError(code, "\(message): \(error.localizedDescription)", underlyingError: error)
    }
}

extension AuthorizationError.Code {
    /// Lets `catch AuthorizationError.Code.userCancelled` match an ``AuthorizationError``.
    public static func ~= (code: AuthorizationError.Code, error: any Error) -> Bool {
        (error as? AuthorizationError)?.code == code
    }
}
