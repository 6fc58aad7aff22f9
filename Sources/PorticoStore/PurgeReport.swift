/// How many expired rows one purge removed, per kind, for logs and metrics.
public struct PurgeReport: Sendable, Hashable {
    /// Expired authorization codes (consumed ones are kept an hour longer to catch replays).
    public var authorizationCodes: Int
    /// Expired browser sessions.
    public var sessions: Int
    /// Expired device authorizations.
    public var deviceAuthorizations: Int
    /// Revocations of access tokens that have expired anyway.
    public var accessTokenRevocations: Int
    /// Hashes of pre-upgrade refresh tokens a day past their expiry (kept that long to report
    /// reuse clearly).
    public var refreshTokens: Int
    /// Refresh-token families a day past the expiry of their current token, or a day past
    /// their revocation (scanned a slice per purge; see ``StoreTransaction/purgeExpired(now:)``).
    public var refreshFamilies: Int = 0
    /// Password-reset links past their expiry (used or not).
    public var passwordResets: Int = 0
    /// Throttled attempts older than their window.
    public var throttleAttempts: Int = 0
    /// App removals remembered until the access tokens issued before them expired.
    public var grantRevocations: Int = 0
    /// Native SSO device sessions left without refresh families (or revoked) a day ago.
    public var deviceSessions: Int = 0
    /// Companion consent tickets past their expiry (used or not).
    public var companionTickets: Int = 0
    /// Sign-ups whose confirmation link expired unused.
    public var pendingSignups: Int = 0
    /// DPoP proofs whose window has passed (their `iat` would refuse them anyway).
    public var dpopProofs: Int = 0
    /// Pushed authorization requests (RFC 9126) whose `request_uri` expired unused.
    public var pushedRequests: Int = 0
    /// Apps' daily sign-in counts older than the console shows (``SignInCountStorage``).
    public var signInDays: Int = 0
    /// Passkey challenges and the records of sealed ones used, past their expiry.
    public var passkeyChallenges: Int = 0

    /// A report with the given counts.
    public init(
        authorizationCodes: Int = 0, sessions: Int = 0, deviceAuthorizations: Int = 0, accessTokenRevocations: Int = 0,
        refreshTokens: Int = 0, refreshFamilies: Int = 0, passwordResets: Int = 0, throttleAttempts: Int = 0,
        grantRevocations: Int = 0
    ) {
        self.authorizationCodes = authorizationCodes
        self.sessions = sessions
        self.deviceAuthorizations = deviceAuthorizations
        self.accessTokenRevocations = accessTokenRevocations
        self.refreshTokens = refreshTokens
        self.refreshFamilies = refreshFamilies
        self.passwordResets = passwordResets
        self.throttleAttempts = throttleAttempts
        self.grantRevocations = grantRevocations
    }

    /// All rows removed.
    public var total: Int {
        authorizationCodes + sessions + deviceAuthorizations + accessTokenRevocations + refreshTokens
            + refreshFamilies + passwordResets + throttleAttempts + grantRevocations + companionTickets + deviceSessions
            + pendingSignups + dpopProofs + pushedRequests + signInDays + passkeyChallenges
    }
}
