import Foundation
import PorticoCrypto
import PorticoStore

/// `grant_type=authorization_code` (OAuth 2.1 §4.1.3): redeems a code for tokens.
///
/// Everything is decided in one write transaction — redeem the code atomically, check client,
/// redirect URI, PKCE and user, start the refresh family, record what the code issued and run
/// the ``IssuancePipeline`` — and the JWTs are signed after it commits. A check that fails throws inside the transaction, so
/// the code is left unredeemed for its rightful owner (a thief without the verifier cannot
/// burn it); a replayed code instead *commits* the revocation of everything it issued, then
/// answers `invalid_grant`.
struct AuthorizationCodeGrant: TokenGrant {
    static let grantType = "authorization_code"
    static let isDefault = true
    static let needsRedirectURI = true

    /// Where codes and refresh families live.
    let store: any Store
    /// Describes the tokens to sign.
    let tokens: TokenIssuer
    /// Lifetimes of codes and tokens.
    let lifetimes: TokenLifetimes
    /// The clock.
    let now: @Sendable () -> Date
    /// What the tokens get before the redemption commits.
    let pipeline: IssuancePipeline

    init(_ dependencies: TokenGrantDependencies) {
        store = dependencies.store
        tokens = dependencies.tokens
        lifetimes = dependencies.lifetimes
        now = dependencies.now
        pipeline = dependencies.pipeline
    }

    /// What the transaction decided.
    private enum Outcome {
        case issue(TokenIssuance)
        case replayed
    }

    /// The tokens to sign for a redeemed code.
    private struct Issue {
        let code: AuthorizationCode
        let user: UserRecord
        let accessToken: TokenIssuer.AccessTokenGrant
        let refreshToken: String?
        /// The Native SSO session begun, with its device secret.
        var deviceSession: (session: DeviceSession, secret: String)? = nil
        /// The `sid` of its ID token, for a client told of sign-outs (``BackChannelLogout``).
        var sessionID: String? = nil
        /// The ID token's `amr` (``AuthenticationMethods``).
        var methods = AuthenticationMethods.password
    }

    /// Redeems the `code` of the request for its client.
    func exchange(_ request: TokenRequest) throws -> TokenIssuance {
        let parameters = request.parameters
        let client = request.client
        let presented = try parameters.required("code")
        // Optional here: a FedCM code has none to repeat (``FedCMCode``); every other code
        // still needs it, checked in `issue` once the code is known.
        let redirectURI = parameters["redirect_uri"]
        guard let verifier = parameters["code_verifier"] else {
            throw OAuthError.invalidRequest("The parameter code_verifier is missing (PKCE is required).")
        }
        let issuer = tokens
        let now = now()
        let outcome = try store.transaction { transaction throws -> Outcome in
            switch try transaction.redeemAuthorizationCode(presented, now: now) {
            case .notFound:
                throw OAuthError.invalidGrant("The authorization code is not valid.")
            case .expired:
                throw OAuthError.invalidGrant("The authorization code has expired.")
            case .alreadyUsed(let code):
                try revokeIssued(by: code, clientID: client.client.id, in: transaction, now: now)
                return .replayed
            case .redeemed(let code):
                var issuance = issuance(
                    of: try issue(
                        code, to: client, redirectURI: redirectURI, verifier: verifier, issuer: issuer,
                        in: transaction, now: now), for: client)
                issuance.requiredProofKey = code.dpopKeyThumbprint
                try pipeline.shape(&issuance, for: request, in: transaction)
                return .issue(issuance)
            }
        }
        switch outcome {
        case .replayed:
            throw OAuthError.invalidGrant("The authorization code has already been used.")
        case .issue(let issuance):
            return issuance
        }
    }

    /// The tokens `issue` decided on.
    private func issuance(of issue: Issue, for client: AuthenticatedClient) -> TokenIssuance {
        var issuance = TokenIssuance(
            accessToken: issue.accessToken,
            identity: TokenIssuer.IdentityGrant(
                user: issue.user, client: client.client, scopes: issue.code.scopes,
                authTime: issue.code.authTime, nonce: issue.code.nonce),
            refreshToken: issue.refreshToken)
        if let sessionID = issue.sessionID { issuance.identity?.additionalClaims["sid"] = .string(sessionID) }
        issuance.identity?.additionalClaims["amr"] = AuthenticationMethods.claim(issue.methods)
        if let device = issue.deviceSession {
            NativeSSO.mark(&issuance, session: device.session, newSecret: device.secret)
        }
        return issuance
    }

    /// Checks a freshly redeemed code against the request and records what it issues.
    private func issue(
        _ code: AuthorizationCode, to client: AuthenticatedClient, redirectURI: String?, verifier: String,
        issuer: TokenIssuer, in transaction: any StoreTransaction, now: Date
    ) throws -> Issue {
        guard code.clientID == client.client.id else {
            throw OAuthError.invalidGrant("The authorization code was issued to another client.")
        }
        if FedCMCode.isFedCM(code) {
            guard redirectURI == nil else {
                throw OAuthError.invalidGrant("This code came from FedCM: redeem it without redirect_uri.")
            }
        } else {
            guard let redirectURI else { throw OAuthError.invalidRequest("The parameter redirect_uri is missing.") }
            guard RedirectURIPolicy.sameBytes(code.redirectURI, redirectURI) else {
                throw OAuthError.invalidGrant("The redirect_uri does not match the authorization request.")
            }
        }
        guard PKCE.verify(verifier, matches: code.codeChallenge) else {
            throw OAuthError.invalidGrant("The code_verifier does not match the code_challenge.")
        }
        guard let user = try transaction.user(id: code.userID), !user.isDisabled else {
            throw OAuthError.invalidGrant("The account is not available.")
        }
        var accessToken = issuer.accessTokenGrant(
            subject: user.id, clientID: client.client.id, scopes: code.scopes, authTime: code.authTime)
        if let resource = code.resource { accessToken.audience = [resource] }
        let family = try RefreshFamilies.begin(
            for: client.client, userID: user.id, scopes: code.scopes, authTime: code.authTime, now: now,
            lifetime: lifetimes.refreshToken, in: transaction)
        if let family, let resource = code.resource {
            try transaction.recordResource(resource, forRefreshFamily: family.familyID)
        }
        var deviceSession: (session: DeviceSession, secret: String)?
        if let family, NativeSSO.begins(for: client.client, scopes: code.scopes) {
            deviceSession = try NativeSSO.begin(
                for: client.client, userID: user.id, scopes: code.scopes, authTime: code.authTime,
                browserSessionHashedID: code.sessionHashedID, familyID: family.familyID, now: now, in: transaction)
        }
        try transaction.recordIssuance(
            forCode: code.hashedCode, refreshFamilyID: family?.familyID, accessTokenID: accessToken.tokenID,
            accessTokenExpiresAt: accessToken.expiresAt)
        // A client told of sign-outs learns the session's `sid` (its sector's for a pairwise
        // client; the device session's in Native SSO, shared by design within the SSO group), and the family remembers its browser session so that signing it out tells them.
        var sessionID: String?
        if BackChannelLogout.isTold(client.client), let browserSession = code.sessionHashedID {
            let sid =
                deviceSession?.session.id
                ?? BackChannelLogout.sessionID(browserSessionHashedID: browserSession, client: client.client)
            if let family {
                try transaction.linkRefreshFamily(family.familyID, toBrowserSession: browserSession, sessionID: sid)
            }
            sessionID = sid
        }
        let methods = try AuthenticationMethods.carry(
            fromSession: code.sessionHashedID, toRefreshFamily: family?.familyID, in: transaction)
        return Issue(
            code: code, user: user, accessToken: accessToken, refreshToken: family?.token,
            deviceSession: deviceSession, sessionID: sessionID, methods: methods)
    }

    /// A replayed code (OAuth 2.1 §4.1.3): revoke the refresh family and access token its first
    /// redemption issued, and leave a trace in the audit log.
    ///
    /// Once per code: the first replay forgets what the code issued (a compare-and-swap), and
    /// later ones, which anyone holding the used code can send with any client id, find nothing
    /// to revoke. Otherwise each replay would queue another logout notice to the app's backend
    /// and another audit row.
    private func revokeIssued(
        by code: AuthorizationCode, clientID: String, in transaction: any StoreTransaction, now: Date
    ) throws {
        guard try transaction.forgetIssuance(forCode: code.hashedCode) else { return }
        if let familyID = code.issuedRefreshFamilyID {
            try transaction.revokeRefreshFamily(id: familyID, now: now)
        }
        if let tokenID = code.issuedAccessTokenID {
            let expiresAt = code.issuedAccessTokenExpiresAt ?? now.addingTimeInterval(lifetimes.accessToken)
            try transaction.revokeAccessToken(id: tokenID, expiresAt: expiresAt)
        }
        // And the access tokens its refresh family minted since (they are listed nowhere).
        try GrantRevocation.revokeAccessTokens(
            userID: code.userID, clientID: code.clientID, now: now, accessTokenLifetime: lifetimes.accessToken,
            in: transaction)
        let details: JSONValue = [
            "client_id": .string(code.clientID), "presented_by": .string(clientID),
            "revoked_access_token": .bool(code.issuedAccessTokenID != nil),
            "revoked_refresh_family": .bool(code.issuedRefreshFamilyID != nil),
        ]
        try transaction.append(
            AuditEvent(
                occurredAt: now, actor: clientID, action: "token.code_replayed", subject: code.userID,
                details: details.jsonString))
    }
}
