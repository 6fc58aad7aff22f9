import PorticoStore

/// The answer to a device's poll of the token endpoint (RFC 8628 §3.5), decided by the
/// provider's policy on the store's conditional updates
/// (``DevicePollPolicy/poll(deviceCode:in:now:)``).
public enum DevicePoll: Sendable, Hashable {
    /// Still waiting for the person: `authorization_pending`.
    case pending
    /// Polled sooner than the interval allows: `slow_down`; the interval has been raised.
    case slowDown(interval: Int)
    /// Approved and now consumed: issue tokens for it, once.
    case approved(DeviceAuthorization)
    /// The person refused: `access_denied`.
    case denied
    /// Expired, or tokens were already issued for it: `expired_token`.
    case expired
    /// No such device code: `invalid_grant`.
    case notFound
}
