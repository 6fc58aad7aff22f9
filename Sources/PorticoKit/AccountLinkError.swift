import Foundation

/// Why ``AccountLinkSession`` could not hand the mini-program container an ``AuthModel``.
///
/// Shaped like ``AuthorizationError``: one struct over a private code enum, so new kinds can be
/// added without breaking an app's `switch`. The container needs to tell apart a person who came
/// back without acting (show the mini-program's "sign in" button again, at once) from a time-out,
/// from the host's own logout, and from a host backend that is down (retry later).
public struct AccountLinkError: LocalizedError, Sendable, CustomStringConvertible {
    /// The kind of failure; compare it with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable {
            case returnedWithoutActing = "returned without acting"
            case timedOut = "timed out"
            case cancelled = "cancelled"
            case authorizationFailed = "authorization failed"
            case hostBackend = "host backend failure"
            case storage = "token storage failure"
            case invalidInput = "invalid input"
        }

        fileprivate let base: Base

        fileprivate init(_ base: Base) {
            self.base = base
        }

        /// The app became active again and no authorization result followed within the grace:
        /// the person left the platform's page without acting. mPaaS waits minutes here; this
        /// ends in seconds.
        public static let returnedWithoutActing = Code(.returnedWithoutActing)
        /// Nothing came back before the session's deadline.
        public static let timedOut = Code(.timedOut)
        /// ``AccountLinkSession/logout()`` or ``AccountLinkSession/unbind()`` ended the request,
        /// or the caller's task was cancelled.
        public static let cancelled = Code(.cancelled)
        /// The platform's authorization failed (declined, a state mismatch, no browser); see
        /// ``AccountLinkError/authorizationError``.
        public static let authorizationFailed = Code(.authorizationFailed)
        /// The host's backend could not be reached or refused (for example a `link_conflict`).
        public static let hostBackend = Code(.hostBackend)
        /// The token store could not be read or written.
        public static let storage = Code(.storage)
        /// The app passed something unusable (a request without a URL to
        /// ``AccountLinkSession/authorizedRequest(_:retrying:)``).
        public static let invalidInput = Code(.invalidInput)

        /// The code in plain words.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// A readable explanation, without any token in it.
    public let message: String
    /// The error this one wraps, if any.
    public let underlyingError: (any Error)?

    init(_ code: Code, _ message: String, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlyingError = underlyingError
    }

    /// The authorization's own error when ``code`` is ``Code/authorizationFailed``.
    public var authorizationError: AuthorizationError? { underlyingError as? AuthorizationError }

    /// The code and the message.
    public var description: String {
        guard let underlyingError else { return "\(code): \(message)" }
        return "\(code): \(message): \(underlyingError)"
    }

    /// The same one line, for apps that show `localizedDescription`.
    public var errorDescription: String? { description }

    /// `error` of the authorization step as an ``AccountLinkError``.
    static func authorization(_ error: any Error) -> AccountLinkError {
        if let error = error as? AccountLinkError { return error }
        if error is CancellationError || (error as? AuthorizationError)?.code == .cancelled {
            return AccountLinkError(.cancelled, "the authorization was cancelled", underlyingError: error)
        }
        if (error as? AuthorizationError)?.code == .timedOut {
            return AccountLinkError(.timedOut, "the authorization did not finish in time", underlyingError: error)
        }
        return AccountLinkError(.authorizationFailed, "the platform's authorization failed", underlyingError: error)
    }

    /// `error` of the host backend's step as an ``AccountLinkError``.
    static func hostBackend(_ error: any Error, _ message: String) -> AccountLinkError {
        if let error = error as? AccountLinkError { return error }
        if error is CancellationError { return AccountLinkError(.cancelled, "\(message): cancelled") }
        return AccountLinkError(.hostBackend, message, underlyingError: error)
    }
}

extension AccountLinkError.Code {
    /// Lets `catch AccountLinkError.Code.returnedWithoutActing` match an ``AccountLinkError``.
    public static func ~= (code: AccountLinkError.Code, error: any Error) -> Bool {
        (error as? AccountLinkError)?.code == code
    }
}
