/// What the provider answered the companion for one app's request.
public enum CompanionBrokerAnswer: Sendable, Equatable {
    /// The app's code, its `state` echoed and the issuer (RFC 9207).
    case code(code: String, state: String, issuer: String?)
    /// The person must answer first.
    case consentRequired(CompanionConsent)
}
