/// Where a device authorization (RFC 8628) stands.
public enum DeviceAuthorizationStatus: String, Sendable, Hashable, CaseIterable {
    /// Waiting for the person to enter the user code and decide.
    case pending
    /// The person allowed it; the next poll gets tokens.
    case approved
    /// The person refused.
    case denied
    /// Tokens were issued; further polls are refused.
    case consumed
}
