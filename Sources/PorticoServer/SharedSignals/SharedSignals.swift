import Foundation
import PorticoCrypto
import PorticoStore

/// OpenID Shared Signals Framework 1.0 with CAEP 1.0 and RISC 1.0: telling the apps a person
/// allowed what happens to that person's platform account, as signed Security Event Tokens
/// (RFC 8417) pushed (RFC 8935) or polled (RFC 8936).
///
/// Each app registered with `--ssf` manages one stream (``SignalStream``) with a
/// client-credentials token of scope ``manageScope``. Events are announced inside the
/// transaction of the change that causes them (``SignalAnnouncement``), so the change and the
/// duty to tell commit together, and are delivered later from the durable outbox (push) or the
/// poll queue.
enum SharedSignals {
    /// The scope of the stream management and poll endpoints' tokens.
    static let manageScope = "ssf.manage"
    /// The outbox topic of pushed SETs.
    static let topic = "ssf_push"
    /// The JWS `typ` of a SET (RFC 8417 §2.3).
    static let tokenType = "secevent+jwt"
    /// Push delivery (RFC 8935).
    static let pushMethod = "urn:ietf:rfc:8935"
    /// Poll delivery (RFC 8936).
    static let pollMethod = "urn:ietf:rfc:8936"
    /// The statuses of a stream (SSF §8.1.2).
    static let statuses: Set<String> = ["enabled", "paused", "disabled"]
    /// The paths of the endpoints the configuration names.
    static let configurationPath = "/ssf/stream"
    static let statusPath = "/ssf/status"
    static let addSubjectPath = "/ssf/subjects/add"
    static let removeSubjectPath = "/ssf/subjects/remove"
    static let verificationPath = "/ssf/verify"
    static let pollPath = "/ssf/poll"
    /// The longest a poll waits for events (RFC 8936 §2.4 long polling).
    static let longestPoll: Duration = .seconds(30)

    /// The event types the provider sends.
    enum Event: String, CaseIterable, Sendable {
        case sessionRevoked = "https://schemas.openid.net/secevent/caep/event-type/session-revoked"
        case credentialChange = "https://schemas.openid.net/secevent/caep/event-type/credential-change"
        case tokenClaimsChange = "https://schemas.openid.net/secevent/caep/event-type/token-claims-change"
        case accountDisabled = "https://schemas.openid.net/secevent/risc/event-type/account-disabled"
        case accountEnabled = "https://schemas.openid.net/secevent/risc/event-type/account-enabled"
        case accountPurged = "https://schemas.openid.net/secevent/risc/event-type/account-purged"
        case identifierChanged = "https://schemas.openid.net/secevent/risc/event-type/identifier-changed"
        case verification = "https://schemas.openid.net/secevent/ssf/event-type/verification"

        /// Whether it is a CAEP event, which carries `event_timestamp`.
        var isCAEP: Bool { rawValue.contains("/caep/") }
    }

    /// The event types a stream delivers: those requested that the provider sends, and
    /// verification always (SSF §8.1.4).
    static func delivers(_ event: Event, on stream: SignalStream) -> Bool {
        event == .verification || stream.eventsRequested.contains(event.rawValue)
    }

    /// `events_delivered` of `stream`.
    static func eventsDelivered(_ stream: SignalStream) -> [String] {
        Event.allCases.map(\.rawValue).filter { stream.eventsRequested.contains($0) }
    }
}
