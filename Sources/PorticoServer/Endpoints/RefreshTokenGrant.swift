import Foundation
import PorticoCrypto
import PorticoStore

/// `grant_type=refresh_token` (OAuth 2.1 §4.3): rotates a refresh token and issues a new access
/// token, optionally for fewer scopes.
///
/// Every use rotates (RFC 9700 §4.14.2): the presented token is replaced by a new one by a
/// compare-and-swap in the store (``RefreshTokenPolicy`` decides what the presented token is).
/// Presenting a replaced token again revokes the whole family —
/// except within the grace period (`lifetimes.refreshReuseGrace`): a client that lost the
/// response and retries with the same token, and has not used what it was sent, gets a fresh
/// token instead, which supersedes the one it never received (the store remembers which token
/// the last rotation replaced, so it can tell that retry from a replay of anything older). A
/// check that fails (wrong client, widened scope, disabled account, an ``IssuanceStep``'s
/// refusal such as a `resource` the family may not get) rolls the rotation back with the
/// transaction, so it changes nothing and cannot be used to burn someone else's token.
/// The common case — a current token, its own client, no narrowed scope, nothing a step could
/// refuse — is tried first as one conditional write
/// (``RefreshTokenPolicy/rotateInOneStep(_:clientID:in:now:)``, on PostgreSQL one
/// statement instead of a transaction of several reads and writes), which holds every one of those checks in its condition; whatever
/// it does not rotate goes through the transaction, which decides as always.
struct RefreshTokenGrant: TokenGrant {
    static let grantType = "refresh_token"
    static let isDefault = true

    /// Where codes and refresh families live.
    let store: any Store
    /// Describes the tokens to sign.
    let tokens: TokenIssuer
    /// Lifetimes of codes and tokens.
    let lifetimes: TokenLifetimes
    /// The clock.
    let now: @Sendable () -> Date
    /// Counts detected reuse.
    let metrics: ProviderMetrics
    /// What the tokens get before the rotation commits.
    let pipeline: IssuancePipeline
    /// Rotation, reuse detection and the reuse grace, with the refresh lifetimes.
    let refreshTokens: RefreshTokenPolicy

    init(_ dependencies: TokenGrantDependencies) {
        store = dependencies.store
        tokens = dependencies.tokens
        lifetimes = dependencies.lifetimes
        now = dependencies.now
        metrics = dependencies.metrics
        pipeline = dependencies.pipeline
        refreshTokens = RefreshTokenPolicy(dependencies.lifetimes)
    }

    /// What the transaction decided.
    private enum Outcome {
        case issue(TokenIssuance)
        case reuseDetected
    }

    /// The tokens to sign after the rotation committed.
    private struct Issue {
        let family: RefreshFamily
        let user: UserRecord
        let scopes: [String]
        let refreshToken: String
        let accessToken: TokenIssuer.AccessTokenGrant
        /// The Native SSO session the family was issued in, if any.
        var deviceSession: DeviceSession? = nil
        /// The `sid` of the family's ID tokens, for a client told of sign-outs.
        var sessionID: String? = nil
        /// The family's `amr` (``AuthenticationMethods``).
        var methods = AuthenticationMethods.password
    }

    /// Rotates the `refresh_token` of the request for its client.
    func exchange(_ request: TokenRequest) throws -> TokenIssuance {
        let parameters = request.parameters
        let client = request.client
        let presented = try parameters.required("refresh_token")
        let requestedScopes = parameters["scope"].map { ScopeCatalog.parse($0) }
        let issuer = tokens
        let now = now()
        // The common case first, in one statement (RefreshTokenPolicy+OneStep): it rotates only
        // when every check below would pass, and changes nothing otherwise. A narrowed scope is
        // checked against the family's, which only the transaction below reads first; a request
        // an issuance step could refuse goes there too, so that nothing refuses after a commit.
        if requestedScopes == nil, let (record, successor, shaping) = try rotateInOneStep(presented, request, now: now)
        {
            var issuance = issuance(
                of: try oneStepIssue(record, successor: successor, client: client.client), for: client)
            issuance.knownGrantRevocation = record.grantRevokedAt.map(KnownGrantRevocation.at) ?? .never
            // The step rotates only families bound to no key (a bound one goes the long way).
            issuance.refreshFamilyKey = .unbound
            if let proof = request.proof { issuance.accessToken.confirmationKey = proof.keyThumbprint }
            try pipeline.shape(&issuance, for: shaping)
            return issuance
        }
        let outcome = try store.transaction { transaction throws -> Outcome in
            // Rotate first: the lookup that rotation needs anyway also reads the family. Every
            // check below that fails throws, which rolls the rotation back, so a failed check
            // still changes nothing.
            var successor = ""
            let rotation = try refreshTokens.rotate(presented, in: transaction, now: now) {
                successor = RefreshToken.mint(familyID: $0.id)
                return successor
            }
            guard let family = rotation.family else { throw OAuthError.invalidGrant("The refresh token is not valid.") }
            guard family.clientID == client.client.id else {
                throw OAuthError.invalidGrant("The refresh token was issued to another client.")
            }
            guard !family.isRevoked else { throw OAuthError.invalidGrant("The refresh token has been revoked.") }
            let scopes = requestedScopes ?? family.scopes
            guard scopes.allSatisfy(family.scopes.contains) else {
                throw OAuthError.invalidScope("The requested scope exceeds the scope originally granted.")
            }
            guard let user = try transaction.user(id: family.userID), !user.isDisabled else {
                throw OAuthError.invalidGrant("The account is not available.")
            }
            let refreshToken: String
            switch rotation {
            case .rotated:
                refreshToken = successor
            case .previous(_, let rotatedAt):
                // Within the grace, a retry of a request whose response was lost: what it was
                // sent is unused and gets superseded. Past it, a replay.
                switch try refreshTokens.retry(family: family, rotatedAt: rotatedAt, in: transaction, now: now) {
                case .reissued(let replacement):
                    refreshToken = replacement
                case .superseded:
                    throw OAuthError.invalidGrant("The refresh token has been revoked.")
                case .replay:
                    try revoke(family, presentedBy: client.client.id, in: transaction, now: now)
                    return .reuseDetected
                }
            case .reused:
                try revoke(family, presentedBy: client.client.id, in: transaction, now: now)
                return .reuseDetected
            case .expired:
                throw OAuthError.invalidGrant("The refresh token has expired.")
            case .revoked:
                throw OAuthError.invalidGrant("The refresh token has been revoked.")
            case .notFound:
                throw OAuthError.invalidGrant("The refresh token is not valid.")
            }
            var accessToken = issuer.accessTokenGrant(
                subject: user.id, clientID: client.client.id, scopes: scopes, authTime: family.authTime)
            // The resource the code was bound to (RFC 8707) stays the audience of every refresh.
            if let resource = try transaction.resource(refreshFamilyID: family.id) { accessToken.audience = [resource] }
            let issue = Issue(
                family: family, user: user, scopes: scopes, refreshToken: refreshToken, accessToken: accessToken,
                deviceSession: try NativeSSO.session(of: family, in: transaction),
                sessionID: BackChannelLogout.isTold(client.client)
                    ? try transaction.sessionID(refreshFamilyID: family.id) : nil,
                methods: try transaction.authenticationMethods(refreshFamilyID: family.id)
                    ?? AuthenticationMethods.password)
            var issuance = issuance(of: issue, for: client)
            issuance.refreshFamilyKey = .unknown
            try pipeline.shape(&issuance, for: request, in: transaction)
            return .issue(issuance)
        }
        guard case .issue(let issuance) = outcome else {
            metrics.recordRefreshReuse()
            throw OAuthError.invalidGrant("The refresh token has already been used; its grant is now revoked.")
        }
        return issuance
    }

    /// The one-step rotation when no issuance step could refuse the request: the record, the
    /// successor, and the request the steps shape from. With a DPoP proof the one step records
    /// the proof's first use too (one statement on PostgreSQL, both or neither), the access
    /// token is bound to the proof's key here and the request handed on without the proof, so
    /// that it is not recorded twice.
    private func rotateInOneStep(_ presented: String, _ request: TokenRequest, now: Date) throws -> (
        record: RefreshRotationRecord, successor: String, shaping: TokenRequest
    )? {
        let clientID = request.client.client.id
        guard let proof = request.proof else {
            guard !pipeline.mayRefuse(request),
                let (record, successor) = try refreshTokens.rotateInOneStep(
                    presented, clientID: clientID, in: store, now: now)
            else { return nil }
            return (record, successor, request)
        }
        var unproved = request
        unproved.proof = nil
        guard !pipeline.mayRefuse(unproved),
            let (record, successor) = try refreshTokens.rotateInOneStep(
                presented, clientID: clientID,
                proof: DPoPProofUse(
                    keyThumbprint: proof.keyThumbprint, jti: proof.jti, expiresAt: proof.acceptableUntil),
                in: store, now: now,
                replayed: OAuthError.invalidDPoPProof("The DPoP proof has been used before."))
        else { return nil }
        return (record, successor, unproved)
    }

    /// What the one-step rotation read, as the transaction below would have found it.
    private func oneStepIssue(_ record: RefreshRotationRecord, successor: String, client: Client) throws -> Issue {
        let family = record.family
        var accessToken = tokens.accessTokenGrant(
            subject: record.user.id, clientID: client.id, scopes: family.scopes, authTime: family.authTime)
        if let resource = record.resource { accessToken.audience = [resource] }
        var deviceSession: DeviceSession?
        if family.scopes.contains(NativeSSO.scope), let id = record.deviceSessionID {
            // Only Native SSO families have one: a read of its own, after the rotation.
            deviceSession = try store.readOne { try $0.deviceSession(id: id) }.flatMap { $0.isRevoked ? nil : $0 }
        }
        return Issue(
            family: family, user: record.user, scopes: family.scopes, refreshToken: successor, accessToken: accessToken,
            deviceSession: deviceSession, sessionID: BackChannelLogout.isTold(client) ? record.sessionID : nil,
            methods: record.authenticationMethods ?? AuthenticationMethods.password)
    }

    /// The tokens a rotation decided on.
    private func issuance(of issue: Issue, for client: AuthenticatedClient) -> TokenIssuance {
        var issuance = TokenIssuance(
            accessToken: issue.accessToken,
            identity: TokenIssuer.IdentityGrant(
                user: issue.user, client: client.client, scopes: issue.scopes, authTime: issue.family.authTime,
                nonce: nil),
            refreshToken: issue.refreshToken)
        if let sessionID = issue.sessionID { issuance.identity?.additionalClaims["sid"] = .string(sessionID) }
        issuance.identity?.additionalClaims["amr"] = AuthenticationMethods.claim(issue.methods)
        if let session = issue.deviceSession { NativeSSO.mark(&issuance, session: session, newSecret: nil) }
        return issuance
    }

    /// Reuse detected (RFC 9700 §4.14.2): revoke the family and record it.
    private func revoke(
        _ family: RefreshFamily, presentedBy clientID: String, in transaction: any StoreTransaction, now: Date
    ) throws {
        try transaction.revokeRefreshFamily(id: family.id, now: now)
        // The access tokens the family minted may be in the thief's hands too.
        try GrantRevocation.revokeAccessTokens(
            userID: family.userID, clientID: family.clientID, now: now,
            accessTokenLifetime: lifetimes.accessToken, in: transaction)
        let details: JSONValue = ["client_id": .string(family.clientID), "presented_by": .string(clientID)]
        try transaction.append(
            AuditEvent(
                occurredAt: now, actor: clientID, action: "token.refresh_reuse_detected", subject: family.userID,
                details: details.jsonString))
    }
}
