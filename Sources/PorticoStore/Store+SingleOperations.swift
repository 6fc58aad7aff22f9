import Foundation

// Each operation of a transaction, as a call of its own for callers that need only one (the
// admin commands, tests, benches): reads run in a read transaction, writes in a write
// transaction. Several writes that belong together go in one `transaction { }` instead.
extension Store {
    // MARK: Users

    /// Adds a user; a taken e-mail address throws ``StoreError/duplicate(field:)``.
    public func insert(_ user: UserRecord) throws { try transaction { try $0.insert(user) } }
    /// The user with this id.
    public func user(id: String) throws -> UserRecord? { try read { try $0.user(id: id) } }
    /// The user with this e-mail address, compared case-insensitively.
    public func user(email: String) throws -> UserRecord? { try read { try $0.user(email: email) } }
    /// Up to `limit` users, oldest first.
    public func users(limit: Int = 100) throws -> [UserRecord] { try read { try $0.users(limit: limit) } }
    /// Replaces the stored user (matched by id).
    public func update(_ user: UserRecord) throws { try transaction { try $0.update(user) } }
    /// Removes a user and everything that belongs to them.
    @discardableResult public func deleteUser(id: String) throws -> Bool {
        try transaction { try $0.deleteUser(id: id) }
    }

    // MARK: Clients

    /// Registers a client.
    public func insert(_ client: Client) throws { try transaction { try $0.insert(client) } }
    /// The client with this `client_id`.
    public func client(id: String) throws -> Client? { try read { try $0.client(id: id) } }
    /// All clients, oldest first.
    public func clients() throws -> [Client] { try read { try $0.clients() } }
    /// Replaces the stored client (matched by id).
    public func update(_ client: Client) throws { try transaction { try $0.update(client) } }
    /// Removes a client and everything issued to it.
    @discardableResult public func deleteClient(id: String) throws -> Bool {
        try transaction { try $0.deleteClient(id: id) }
    }
    /// Whether `secret` is the secret of client `clientID`; false for unknown or public clients.
    public func verifyClientSecret(clientID: String, secret: String, now: Date = Date()) throws -> Bool {
        try client(id: clientID)?.verifiesSecret(secret, at: now) ?? false
    }

    // MARK: Product scopes

    /// Adds a product scope.
    public func insert(_ scope: ProductScope) throws { try transaction { try $0.insert(scope) } }
    /// The product scope with this name.
    public func productScope(name: String) throws -> ProductScope? { try read { try $0.productScope(name: name) } }
    /// All product scopes, by name.
    public func productScopes() throws -> [ProductScope] { try read { try $0.productScopes() } }
    /// Replaces a product scope's description.
    public func update(_ scope: ProductScope) throws { try transaction { try $0.update(scope) } }
    /// Removes a product scope.
    @discardableResult public func deleteProductScope(name: String) throws -> Bool {
        try transaction { try $0.deleteProductScope(name: name) }
    }

    // MARK: Signing keys

    /// Stores a signing key.
    public func insert(_ key: StoredSigningKey) throws { try transaction { try $0.insert(key) } }
    /// The key with this `kid`.
    public func signingKey(id: String) throws -> StoredSigningKey? { try read { try $0.signingKey(id: id) } }
    /// All keys, oldest first.
    public func signingKeys() throws -> [StoredSigningKey] { try read { try $0.signingKeys() } }
    /// The key that signs new tokens of `algorithm`.
    public func currentSigningKey(algorithm: String) throws -> StoredSigningKey? {
        try read { try $0.currentSigningKey(algorithm: algorithm) }
    }
    /// Makes an active key the signer of its algorithm.
    public func makeCurrentSigningKey(id: String) throws { try transaction { try $0.makeCurrentSigningKey(id: id) } }
    /// Retires a key.
    public func retireSigningKey(id: String, at time: Date = Date()) throws {
        try transaction { try $0.retireSigningKey(id: id, at: time) }
    }
    /// Forgets a key.
    @discardableResult public func deleteSigningKey(id: String) throws -> Bool {
        try transaction { try $0.deleteSigningKey(id: id) }
    }

    // MARK: Browser sessions

    /// Stores a session.
    public func insert(_ session: BrowserSession) throws { try transaction { try $0.insert(session) } }
    /// The unexpired session whose cookie value is `token`.
    public func session(token: String, now: Date = Date()) throws -> BrowserSession? {
        try read { try $0.session(token: token, now: now) }
    }
    /// Records activity on a session and optionally extends it.
    @discardableResult public func touchSession(token: String, lastSeenAt: Date = Date(), expiresAt: Date? = nil)
        throws -> Bool
    {
        try transaction { try $0.touchSession(token: token, lastSeenAt: lastSeenAt, expiresAt: expiresAt) }
    }
    /// A person's sessions, newest first.
    public func sessions(userID: String) throws -> [BrowserSession] { try read { try $0.sessions(userID: userID) } }
    /// Ends the session whose cookie value is `token`.
    @discardableResult public func deleteSession(token: String) throws -> Bool {
        try transaction { try $0.deleteSession(token: token) }
    }
    /// Ends a session picked from a listing.
    @discardableResult public func deleteSession(hashedID: String) throws -> Bool {
        try transaction { try $0.deleteSession(hashedID: hashedID) }
    }
    /// Ends every session of a person.
    @discardableResult public func deleteSessions(userID: String) throws -> Int {
        try transaction { try $0.deleteSessions(userID: userID) }
    }

    // MARK: Authorization codes

    /// Stores a freshly issued code.
    public func insert(_ code: AuthorizationCode) throws { try transaction { try $0.insert(code) } }
    /// The code as stored, without redeeming it.
    public func authorizationCode(_ code: String) throws -> AuthorizationCode? {
        try read { try $0.authorizationCode(code) }
    }
    /// Redeems a presented code atomically.
    public func redeemAuthorizationCode(_ code: String, now: Date = Date()) throws -> CodeRedemption {
        try transaction { try $0.redeemAuthorizationCode(code, now: now) }
    }

    // MARK: Consents

    /// What `userID` has allowed `clientID`.
    public func consent(userID: String, clientID: String) throws -> Consent? {
        try read { try $0.consent(userID: userID, clientID: clientID) }
    }
    /// Removes a consent.
    @discardableResult public func revokeConsent(userID: String, clientID: String) throws -> Bool {
        try transaction { try $0.revokeConsent(userID: userID, clientID: clientID) }
    }
    /// Every app a person has authorized.
    public func consents(userID: String) throws -> [Consent] { try read { try $0.consents(userID: userID) } }

    // MARK: Refresh tokens

    /// Starts a refresh-token family whose first token is `token`.
    public func insert(_ family: RefreshFamily, token: String, expiresAt: Date) throws {
        try transaction { try $0.insert(family, token: token, expiresAt: expiresAt) }
    }
    /// The family with this id.
    public func refreshFamily(id: String) throws -> RefreshFamily? { try read { try $0.refreshFamily(id: id) } }
    /// A person's families, newest first.
    public func refreshFamilies(userID: String, includeRevoked: Bool = false) throws -> [RefreshFamily] {
        try read { try $0.refreshFamilies(userID: userID, includeRevoked: includeRevoked) }
    }
    /// Revokes a family.
    @discardableResult public func revokeRefreshFamily(id: String, now: Date = Date()) throws -> Bool {
        try transaction { try $0.revokeRefreshFamily(id: id, now: now) }
    }
    /// Revokes every family of a person with one app.
    @discardableResult public func revokeRefreshFamilies(userID: String, clientID: String, now: Date = Date())
        throws -> Int
    {
        try transaction { try $0.revokeRefreshFamilies(userID: userID, clientID: clientID, now: now) }
    }

    // MARK: Access-token revocations

    /// Remembers that an access token is revoked until it expires.
    public func revokeAccessToken(id: String, expiresAt: Date) throws {
        try transaction { try $0.revokeAccessToken(id: id, expiresAt: expiresAt) }
    }
    /// Whether an access token has been revoked.
    public func isAccessTokenRevoked(id: String) throws -> Bool { try read { try $0.isAccessTokenRevoked(id: id) } }

    // MARK: Device authorizations

    /// Stores a pending device authorization (a stored one with the same user code, even an
    /// expired one, is a duplicate; the provider's `DevicePollPolicy.start` makes way).
    public func insert(_ authorization: DeviceAuthorization) throws { try transaction { try $0.insert(authorization) } }
    /// The live authorization with this user code.
    public func deviceAuthorization(userCode: String, now: Date = Date()) throws -> DeviceAuthorization? {
        try read { try $0.deviceAuthorization(userCode: userCode, now: now) }
    }
    /// The authorization whose plain device code is `deviceCode`.
    public func deviceAuthorization(deviceCode: String) throws -> DeviceAuthorization? {
        try read { try $0.deviceAuthorization(deviceCode: deviceCode) }
    }
    /// Approves a live, pending authorization.
    @discardableResult public func approveDeviceAuthorization(
        userCode: String, userID: String, authTime: Date, now: Date = Date()
    ) throws -> Bool {
        try transaction {
            try $0.approveDeviceAuthorization(userCode: userCode, userID: userID, authTime: authTime, now: now)
        }
    }
    /// Denies a live, pending authorization.
    @discardableResult public func denyDeviceAuthorization(userCode: String, now: Date = Date()) throws -> Bool {
        try transaction { try $0.denyDeviceAuthorization(userCode: userCode, now: now) }
    }

    // MARK: Account links

    /// Links a host app's user to a platform account.
    public func insert(_ link: AccountLink) throws { try transaction { try $0.insert(link) } }
    /// The link of a host user in a host app.
    public func accountLink(hostClientID: String, hostUserID: String) throws -> AccountLink? {
        try read { try $0.accountLink(hostClientID: hostClientID, hostUserID: hostUserID) }
    }
    /// Every host app account linked to a platform account.
    public func accountLinks(platformUserID: String) throws -> [AccountLink] {
        try read { try $0.accountLinks(platformUserID: platformUserID) }
    }
    /// Unbinds a host user.
    @discardableResult public func deleteAccountLink(hostClientID: String, hostUserID: String) throws -> Bool {
        try transaction { try $0.deleteAccountLink(hostClientID: hostClientID, hostUserID: hostUserID) }
    }
    /// The link with this `link_id`.
    public func accountLink(id: String) throws -> AccountLink? {
        try read { try $0.accountLink(id: id) }
    }

    // MARK: Audit log

    /// Appends an audit event.
    public func append(_ event: AuditEvent) throws { try transaction { try $0.append(event) } }
    /// The latest events, newest first.
    public func recentAuditEvents(limit: Int = 100) throws -> [AuditEvent] {
        try read { try $0.recentAuditEvents(limit: limit) }
    }

    // MARK: Maintenance

    /// Deletes what has expired as of `now`; the background purger calls this.
    @discardableResult public func purgeExpired(now: Date = Date()) throws -> PurgeReport {
        try transaction { try $0.purgeExpired(now: now) }
    }
}
