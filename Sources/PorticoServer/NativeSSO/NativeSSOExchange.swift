import Foundation
import PorticoCrypto
import PorticoStore

/// Token exchange's Native SSO profile (OpenID Connect Native SSO for Mobile Apps 1.0 §4): an
/// app of an SSO group trades the ID token and device secret another app of its group received
/// for tokens of its own, in the same device session, without a page.
///
/// Every check of the spec's §4.3 comes before anything is issued: the device secret is live;
/// the ID token was signed by this provider (an expired one is fine: the app may have slept);
/// its `ds_hash` matches the device secret and its `sid` names the secret's session, which is
/// still alive; the ID token's app, the session and the asking app are one SSO group; and the
/// scopes need no new consent — what the person allowed any app of the group covers the same
/// scopes for the others, anything beyond is `interaction_required`. A failed check is
/// `invalid_grant` (`invalid_request` for a token that is not an ID token at all).
struct NativeSSOExchange {
    private let store: any Store
    /// Where the ID token's app is read: the cache the token endpoint authenticates the asking
    /// app through, so both apps of the group are judged by the same registrations.
    private let clients: ClientCache
    private let tokens: TokenIssuer
    private let lifetimes: TokenLifetimes
    private let now: @Sendable () -> Date
    /// ID tokens already verified, by their exact text (an app of the group may come again).
    private let verifiedIDTokens: VerifiedIDTokens
    /// What the tokens get, before the exchange commits.
    private let pipeline: IssuancePipeline

    /// What ID tokens may be signed with (a client's choice, see `--id-token-alg`).
    private static let idTokenAlgorithms = Set(KeyRing.algorithms)

    init(_ dependencies: TokenGrantDependencies) {
        store = dependencies.store
        clients = dependencies.clients
        tokens = dependencies.tokens
        lifetimes = dependencies.lifetimes
        now = dependencies.now
        verifiedIDTokens = dependencies.verifiedIDTokens
        pipeline = dependencies.pipeline
    }

    func exchange(_ parameters: TokenExchangeGrant.Parameters, deviceSecret: String, request: TokenRequest)
        throws -> TokenIssuance
    {
        let client = request.client.client
        guard let group = client.ssoGroup else {
            throw OAuthError.unauthorizedClient("This client is in no SSO group (register it with --sso-group).")
        }
        let issuer = tokens.issuer.current
        guard let audience = parameters.audience else {
            throw OAuthError.invalidRequest("The parameter audience is missing (Native SSO asks for the issuer).")
        }
        guard audience == issuer else { throw OAuthError.invalidTarget("The audience must be the issuer, \(issuer).") }
        let idToken = try verifiedIDToken(parameters.subjectToken, issuer: issuer)
        guard let presentedHash = idToken["ds_hash"]?.stringValue,
            ConstantTime.equals(Array(presentedHash.utf8), Array(NativeSSO.deviceSecretHash(secret: deviceSecret).utf8))
        else { throw OAuthError.invalidGrant("The ID token's ds_hash does not match the device secret.") }
        // The ID token's app, read before the write transaction (from memory, as the asking app
        // was); judged inside it, in the order of the checks.
        let first = idToken.audience.count == 1 ? idToken.audience.first : nil
        let firstApp = try first.flatMap { try clients.client(id: $0) }
        let now = now()
        let lifetimes = lifetimes
        let tokens = tokens
        return try store.transaction { transaction throws -> TokenIssuance in
            guard let session = try transaction.deviceSession(secret: deviceSecret) else {
                throw OAuthError.invalidGrant("The device secret is not valid.")
            }
            guard try NativeSSO.isAlive(session, now: now, in: transaction) else {
                throw OAuthError.invalidGrant("The device secret's session has ended.")
            }
            guard idToken["sid"]?.stringValue == session.id else {
                throw OAuthError.invalidGrant("The ID token was not issued in the device secret's session.")
            }
            guard let firstClient = firstApp, firstClient.ssoGroup == session.ssoGroup, session.ssoGroup == group else {
                throw OAuthError.invalidGrant("The ID token's app and this client are not in one SSO group.")
            }
            guard try Self.subject(idToken.subject, of: firstClient, is: session.userID, in: transaction) else {
                throw OAuthError.invalidGrant("The ID token does not speak for the device session's account.")
            }
            guard let user = try transaction.user(id: session.userID), !user.isDisabled else {
                throw OAuthError.invalidGrant("The account is not available.")
            }
            let allowed = Set(client.allowedScopes)
            let scopes = parameters.scopes ?? session.scopes.filter(allowed.contains)
            guard !scopes.isEmpty, scopes.allSatisfy(allowed.contains) else {
                throw OAuthError.invalidScope("This client may not request one of these scopes.")
            }
            var consented = Set<String>()
            var ownConsentCovers = false
            for consent in try transaction.consents(userID: user.id) {
                if consent.clientID == client.id {
                    consented.formUnion(consent.scopes)
                    ownConsentCovers = consent.covers(scopes)
                } else if consent.clientID == firstClient.id {
                    // Usually the consent that covers: the ID token's app, read above.
                    if firstClient.ssoGroup == group { consented.formUnion(consent.scopes) }
                } else if let other = try transaction.client(id: consent.clientID), other.ssoGroup == group {
                    consented.formUnion(consent.scopes)
                }
            }
            guard scopes.allSatisfy(consented.contains) else {
                throw OAuthError.interactionRequired(
                    "The person has not allowed these scopes to any app of the group; send them to /oauth/authorize.")
            }
            // Recorded for this app too (Your Account lists it), unless it already is.
            if !ownConsentCovers {
                try ConsentPolicy().grant(
                    userID: user.id, clientID: client.id, scopes: Set(scopes), in: transaction, now: now)
            }
            // Inserted already linked to the session: one write of the family's row (on
            // PostgreSQL a link made afterwards would write the row a second time).
            let family = try RefreshFamilies.begin(
                for: client, userID: user.id, scopes: scopes, authTime: session.authTime, now: now,
                lifetime: lifetimes.refreshToken, inDeviceSession: session.id, in: transaction)
            // Signing out the browser the device session began in tells this app too.
            if let family, BackChannelLogout.isTold(client), let browser = session.browserSessionHashedID {
                try transaction.linkRefreshFamily(family.familyID, toBrowserSession: browser, sessionID: session.id)
            }
            try transaction.append(
                AuditEvent(
                    occurredAt: now, actor: client.id, action: "token.native_sso", subject: user.id,
                    details: (["sid": .string(session.id), "from_client_id": .string(firstClient.id)] as JSONValue)
                        .jsonString))
            var issuance = TokenIssuance(
                accessToken: tokens.accessTokenGrant(
                    subject: user.id, clientID: client.id, scopes: scopes, authTime: session.authTime),
                identity: TokenIssuer.IdentityGrant(
                    user: user, client: client, scopes: scopes, authTime: session.authTime, nonce: nil),
                refreshToken: family?.token)
            NativeSSO.mark(&issuance, session: session, newSecret: nil)
            try pipeline.shape(&issuance, for: request, in: transaction)
            return issuance
        }
    }

    /// The claims of an ID token this provider signed, expired or not.
    private func verifiedIDToken(_ token: String, issuer: String) throws -> JWTClaims {
        let claims: JWTClaims
        if let known = verifiedIDTokens.value(of: token, generation: tokens.keys.generation) {
            claims = known
        } else {
            claims = try verifiedSignature(token)
        }
        guard claims.issuer == issuer else { throw OAuthError.invalidGrant("The ID token was not issued here.") }
        return claims
    }

    /// The claims of `token` once its signature verifies with this provider's keys, which then
    /// remember it.
    private func verifiedSignature(_ token: String) throws -> JWTClaims {
        let (verifier, generation) = tokens.keys.verifierAndGeneration(for: token)
        let claims: JWTClaims
        do {
            claims = try verifier.verify(token, algorithms: Self.idTokenAlgorithms, type: "JWT").claims()
        } catch .invalidSignature, .unknownKeyID, .keyAlgorithmMismatch, .invalidSignatureLength {
            throw OAuthError.invalidGrant("The ID token's signature does not verify with this provider's keys.")
        } catch {
            throw OAuthError.invalidRequest("The subject_token is not an ID token.")
        }
        verifiedIDTokens.remember(claims, of: token, generation: generation)
        return claims
    }

    /// Whether `subject`, the `sub` of an ID token issued to `client`, is the account `userID`.
    private static func subject(
        _ subject: String?, of client: Client, is userID: String, in transaction: any StoreTransaction
    ) throws -> Bool {
        guard let subject else { return false }
        guard client.subjectType == .pairwise else { return subject == userID }
        return try transaction.userID(pairwiseSubject: subject, sector: client.sectorIdentifier ?? client.id) == userID
    }
}
