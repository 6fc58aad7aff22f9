import Foundation

/// Every operation of the store, available inside one transaction.
///
/// The identity provider gets one of these from ``Store/transaction(_:)`` (or
/// ``Store/read(_:)``) and does all the writes of one request through it, so that they commit
/// or roll back together. Operations that take a presented secret (session id, code, refresh
/// token, device code) hash it themselves, so no caller can look up or store a plain secret.
/// Failures are ``StoreError``s. A transaction must not be kept or used after its body returns.
public protocol StoreTransaction {
    // MARK: Users

    /// Adds a user; throws ``StoreError/duplicate(field:)`` with `email` when the address is
    /// taken in any letter case.
    func insert(_ user: User) throws
    /// The user with this id.
    func user(id: String) throws -> User?
    /// The user with this e-mail address, compared case-insensitively.
    func user(email: String) throws -> User?
    /// Up to `limit` users, oldest first, for admin listings.
    func users(limit: Int) throws -> [User]
    /// Replaces the stored user with `user` (matched by id); throws ``StoreError/notFound(entity:id:)``.
    func update(_ user: User) throws
    /// Removes a user and, by cascade, their sessions, codes, consents, tokens and links.
    @discardableResult func deleteUser(id: String) throws -> Bool

    // MARK: Clients

    /// Registers a client.
    func insert(_ client: Client) throws
    /// The client with this `client_id`.
    func client(id: String) throws -> Client?
    /// All clients, oldest first.
    func clients() throws -> [Client]
    /// Replaces the stored client with `client` (matched by id).
    func update(_ client: Client) throws
    /// Removes a client and, by cascade, everything issued to it.
    @discardableResult func deleteClient(id: String) throws -> Bool

    // MARK: Product scopes

    /// Adds a product scope; the name is unique.
    func insert(_ scope: ProductScope) throws
    /// The product scope with this name.
    func productScope(name: String) throws -> ProductScope?
    /// All product scopes, by name.
    func productScopes() throws -> [ProductScope]
    /// Replaces the description of the stored scope with that of `scope`.
    func update(_ scope: ProductScope) throws
    /// Removes a product scope.
    @discardableResult func deleteProductScope(name: String) throws -> Bool

    // MARK: Signing keys

    /// Stores a signing key; if `key.isCurrent`, it replaces the current one of its algorithm.
    func insert(_ key: SigningKey) throws
    /// The key with this `kid`.
    func signingKey(id: String) throws -> SigningKey?
    /// All keys, oldest first: what the JWKS publishes (active and recently retired ones).
    func signingKeys() throws -> [SigningKey]
    /// The key that signs new tokens of `algorithm`.
    func currentSigningKey(algorithm: String) throws -> SigningKey?
    /// Makes an active key the signer of its algorithm, in place of the previous one.
    func makeCurrentSigningKey(id: String) throws
    /// Retires a key: it stops signing (and stops being current) but stays published.
    func retireSigningKey(id: String, at time: Date) throws
    /// Forgets a key, once no unexpired token can carry its signature.
    @discardableResult func deleteSigningKey(id: String) throws -> Bool

    // MARK: Browser sessions

    /// Stores a session.
    func insert(_ session: BrowserSession) throws
    /// The unexpired session whose cookie value is `token`.
    func session(token: String, now: Date) throws -> BrowserSession?
    /// Records activity on a session and optionally extends it; false if there is none.
    @discardableResult func touchSession(token: String, lastSeenAt: Date, expiresAt: Date?) throws -> Bool
    /// A person's sessions (expired ones included until purged), newest first.
    func sessions(userID: String) throws -> [BrowserSession]
    /// Ends the session whose cookie value is `token` (sign-out).
    @discardableResult func deleteSession(token: String) throws -> Bool
    /// Ends a session picked from a listing by its hashed id ("sign out that device").
    @discardableResult func deleteSession(hashedID: String) throws -> Bool
    /// Ends every session of a person ("sign out everywhere"); returns how many.
    @discardableResult func deleteSessions(userID: String) throws -> Int

    // MARK: Authorization codes

    /// Stores a freshly issued code.
    func insert(_ code: AuthorizationCode) throws
    /// The code as stored, whatever its state, without redeeming it.
    func authorizationCode(_ code: String) throws -> AuthorizationCode?
    /// Redeems a presented code: consumes it if it is unused and unexpired, in one atomic step,
    /// so that two concurrent token requests cannot both succeed.
    func redeemAuthorizationCode(_ code: String, now: Date) throws -> CodeRedemption
    /// Records what a redeemed code issued, so that a replay can revoke it.
    func recordIssuance(
        forCode hashedCode: String, refreshFamilyID: String?, accessTokenID: String?, accessTokenExpiresAt: Date?
    ) throws

    // MARK: Consents

    /// What `userID` has allowed `clientID`.
    func consent(userID: String, clientID: String) throws -> Consent?
    /// Adds `scopes` to the consent (creating it), and returns the union now granted.
    @discardableResult func grantConsent(userID: String, clientID: String, scopes: Set<String>, now: Date) throws
        -> Consent
    /// Removes the whole consent.
    @discardableResult func revokeConsent(userID: String, clientID: String) throws -> Bool
    /// Every app a person has authorized, for the account page.
    func consents(userID: String) throws -> [Consent]

    // MARK: Refresh tokens

    /// Starts a refresh-token family whose first token is `token` (only its hash is kept).
    func insert(_ family: RefreshFamily, token: String, expiresAt: Date) throws
    /// The family with this id.
    func refreshFamily(id: String) throws -> RefreshFamily?
    /// A person's families, newest first; revoked ones only if asked.
    func refreshFamilies(userID: String, includeRevoked: Bool) throws -> [RefreshFamily]
    /// Revokes a family: none of its tokens refresh again.
    @discardableResult func revokeRefreshFamily(id: String, now: Date) throws -> Bool
    /// Revokes every family of a person with one app (consent revoked); returns how many.
    @discardableResult func revokeRefreshFamilies(userID: String, clientID: String, now: Date) throws -> Int
    /// The token whose plain value is `token`: its family's current token or the one the last
    /// rotation replaced (or, for tokens minted before tokens named their family, any token the
    /// family had); nil for anything else.
    func refreshToken(_ token: String) throws -> RefreshToken?
    /// Rotates a presented token: if it is current (and its family live and it unexpired) the
    /// token `replacement` returns becomes current and the presented one is remembered as the
    /// one replaced, in one atomic step; otherwise the result says why not, and a reuse is
    /// reported rather than acted on.
    ///
    /// `replacement` gets the family the lookup found (a token minted before tokens named their
    /// family does not say which it is), so the provider can mint a successor that names it
    /// (``RefreshToken/mint(familyID:)``) without reading the family first.
    func rotateRefreshToken(
        _ presented: String, expiresAt: Date, now: Date, replacement: (RefreshFamily) throws -> String
    ) throws -> RefreshRotation
    /// The reuse grace period's step: replaces the family's current token — which the client
    /// never received, as it has just presented the token before it
    /// (``RefreshRotation/previous(family:rotatedAt:)``) — with `replacement`, issued `now`, keeping
    /// the presented one as the one replaced. False when the family is revoked or gone.
    func supersedeRefreshToken(familyID: String, replacement: String, expiresAt: Date, now: Date) throws -> Bool

    // MARK: Access-token revocations

    /// Remembers that the access token `id` (its `jti`) is revoked until it expires.
    func revokeAccessToken(id: String, expiresAt: Date) throws
    /// Whether the access token `id` has been revoked.
    func isAccessTokenRevoked(id: String) throws -> Bool
    /// Remembers that `userID` removed `clientID` at `time`, until `expiresAt` (when every
    /// access token issued before it has expired); a later removal replaces an earlier one.
    func revokeGrant(userID: String, clientID: String, at time: Date, expiresAt: Date) throws
    /// Whether the access token `id`, issued at `issuedAt` to `clientID` for `userID`, has been
    /// revoked: by itself, or by a removal of the app at or after `issuedAt`. One lookup.
    func isAccessTokenRevoked(id: String, userID: String, clientID: String, issuedAt: Date) throws -> Bool

    // MARK: Device authorizations

    /// Stores a pending device authorization; throws ``StoreError/duplicate(field:)`` with
    /// `user_code` when a live one has the same user code (an expired one is replaced).
    func insert(_ authorization: DeviceAuthorization) throws
    /// The live authorization with this user code (typed by a person; normalized here).
    func deviceAuthorization(userCode: String, now: Date) throws -> DeviceAuthorization?
    /// The authorization whose plain device code is `deviceCode`, whatever its state.
    func deviceAuthorization(deviceCode: String) throws -> DeviceAuthorization?
    /// Approves a live, pending authorization for `userID`; false if there is none.
    @discardableResult func approveDeviceAuthorization(userCode: String, userID: String, authTime: Date, now: Date)
        throws -> Bool
    /// Denies a live, pending authorization; false if there is none.
    @discardableResult func denyDeviceAuthorization(userCode: String, now: Date) throws -> Bool
    /// Answers a device's poll, enforcing the interval and consuming an approval exactly once.
    func pollDeviceAuthorization(deviceCode: String, now: Date) throws -> DevicePoll

    // MARK: Account links

    /// Links a host app's user to a platform account.
    func insert(_ link: AccountLink) throws
    /// The link of a host user in a host app.
    func accountLink(hostClientID: String, hostUserID: String) throws -> AccountLink?
    /// Every host app account linked to a platform account.
    func accountLinks(platformUserID: String) throws -> [AccountLink]
    /// Unbinds a host user.
    @discardableResult func deleteAccountLink(hostClientID: String, hostUserID: String) throws -> Bool

    // MARK: Password resets

    /// Stores a freshly mailed reset link (only its token's hash).
    func insert(_ reset: PasswordReset) throws
    /// The reset whose plain token is `token`, whatever its state.
    func passwordReset(token: String) throws -> PasswordReset?
    /// Uses up a presented reset token if it is unused and unexpired, in one atomic step, so
    /// that a link changes a password at most once.
    func redeemPasswordReset(token: String, now: Date) throws -> PasswordResetRedemption
    /// Forgets every reset link of a person (after a reset, so older links die too).
    @discardableResult func deletePasswordResets(userID: String) throws -> Int

    // MARK: Throttled attempts

    /// Counts one attempt under its key.
    func insert(_ attempt: ThrottleAttempt) throws
    /// When the attempts under `key` after `since` happened, oldest first.
    func throttleAttempts(key: String, since: Date) throws -> [Date]
    /// Takes back one attempt (one reserved before a check that then succeeded).
    @discardableResult func deleteThrottleAttempt(id: String) throws -> Bool
    /// Forgets every attempt under `key` (a successful sign-in clears its account's count).
    @discardableResult func deleteThrottleAttempts(key: String) throws -> Int

    // MARK: Audit log

    /// Appends an event; the log cannot be changed afterwards.
    func append(_ event: AuditEvent) throws
    /// The latest `limit` events, newest first.
    func recentAuditEvents(limit: Int) throws -> [AuditEvent]

    // MARK: Maintenance

    /// Deletes what has expired as of `now`: codes, sessions, device authorizations,
    /// revocations of expired access tokens, refresh families a day past their token's expiry
    /// or their revocation (a slice of the table per call, so that a purge stays short however
    /// many there are), hashes of pre-upgrade refresh tokens a day past expiry, password-reset
    /// links, and throttled attempts that no longer count.
    @discardableResult func purgeExpired(now: Date) throws -> PurgeReport

    // MARK: Native SSO device sessions

    /// Stores a device session (its device secret only as a hash).
    func insert(_ session: DeviceSession) throws
    /// The session whose plain device secret is `secret`, whatever its state.
    func deviceSession(secret: String) throws -> DeviceSession?
    /// The session with this id (`sid`), whatever its state.
    func deviceSession(id: String) throws -> DeviceSession?
    /// Records that the refresh family `familyID` was issued in the device session `sessionID`.
    func linkRefreshFamily(_ familyID: String, toDeviceSession sessionID: String) throws
    /// The device session the family `familyID` was issued in, if any.
    func deviceSessionID(refreshFamilyID familyID: String) throws -> String?
    /// Whether a refresh family issued in the session is unrevoked and its token unexpired.
    func hasLiveRefreshFamily(deviceSessionID: String, now: Date) throws -> Bool
    /// Revokes a device session; false when it was already revoked or is unknown.
    @discardableResult func revokeDeviceSession(id: String, now: Date) throws -> Bool
    /// Revokes every refresh family issued in the device session; returns how many.
    @discardableResult func revokeRefreshFamilies(deviceSessionID: String, now: Date) throws -> Int
    /// The unrevoked device sessions begun in the browser session `hashedID`.
    func deviceSessions(browserSessionHashedID hashedID: String) throws -> [DeviceSession]
    /// A person's unrevoked device sessions.
    func deviceSessions(userID: String) throws -> [DeviceSession]

    // MARK: Pairwise subjects and provider secrets

    /// The provider's secret `name`: the stored one, or `candidate`, stored now when there was
    /// none (several nodes starting at once agree on the first one stored).
    func providerSecret(name: String, candidate: [UInt8]) throws -> [UInt8]
    /// Remembers whose pairwise `subject` in `sector` is; the same triple again changes nothing.
    func recordPairwiseSubject(_ subject: String, sector: String, userID: String) throws
    /// The person whose pairwise subject in `sector` is `subject`.
    func userID(pairwiseSubject subject: String, sector: String) throws -> String?
}

extension StoreTransaction {
    /// Rotates a presented token to a `replacement` known in advance; see
    /// ``rotateRefreshToken(_:expiresAt:now:replacement:)``.
    public func rotateRefreshToken(_ presented: String, replacement: String, expiresAt: Date, now: Date) throws
        -> RefreshRotation
    {
        try rotateRefreshToken(presented, expiresAt: expiresAt, now: now) { _ in replacement }
    }
}
