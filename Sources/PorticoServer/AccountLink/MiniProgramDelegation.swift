import Foundation
import PorticoCrypto
import PorticoStore

/// Token exchange's mini-program delegation profile (DESIGN, "Token exchange", profile 1): a
/// confidential host app trades the access token it holds for a person for one its mini-program
/// uses, so that the mini-program gets the person's sign-in without a page of its own (the
/// mPaaS "账户通" auth model, with the platform deciding rather than trusting the host).
///
/// The request names the mini-program with `audience=<its client_id>`. Every check comes before
/// anything is issued:
///
/// - the host is confidential (a secret proved it) → else `unauthorized_client`;
/// - the audience is a mini-program registered under *this* host and still enabled, and no
///   `resource` is named (its tokens are for the provider's own endpoints) → else
///   `invalid_target`;
/// - the subject token is a live access token issued to this host for a person, carrying
///   `account_link`, not revoked, for an account that exists and is not disabled → else
///   `invalid_request`;
/// - the person and the host have a live account link → else `invalid_request`: RFC 8693
///   §2.2.2 requires that code when a subject token is "unacceptable based on policy", which is
///   what a token of an unlinked person is (the token itself is fine, the delegation is not
///   allowed); `invalid_grant` would tell the host its token is bad, and it is not.
///
/// Issued: an `at+jwt` whose `client_id` is the mini-program and whose `sub` is the subject the
/// mini-program sees (pairwise if it is registered so), with `act: {"sub": <host client_id>}`
/// (RFC 8693 §4.1); the scopes of the subject token that the mini-program is registered for,
/// narrowed further by `scope`; a lifetime ending no later than the subject token's; no
/// refresh token and no ID token. Such a token stays valid only while the link and the
/// mini-program do (``DelegatedAccess``).
struct MiniProgramDelegation {
    private let store: any Store
    private let tokens: TokenIssuer
    private let lifetimes: TokenLifetimes
    private let now: @Sendable () -> Date
    private let verifier: AccessTokenVerifier
    private let subjects: PairwiseSubjects

    init(_ dependencies: TokenGrantDependencies) {
        store = dependencies.store
        tokens = dependencies.tokens
        lifetimes = dependencies.lifetimes
        now = dependencies.now
        verifier = dependencies.accessTokens
        subjects = dependencies.subjects
    }

    /// Whether `audience` names a mini-program (of any host): then the request is a delegation,
    /// and one naming another host's mini-program is refused as such rather than as narrowing.
    func isDelegation(to audience: String) throws -> Bool {
        try store.read { try $0.miniProgram(clientID: audience) } != nil
    }

    func exchange(_ parameters: TokenExchangeGrant.Parameters, audience: String, client: AuthenticatedClient)
        throws -> TokenIssuance
    {
        guard client.isConfidential else {
            throw OAuthError.unauthorizedClient("Only a confidential host app may delegate to its mini-programs.")
        }
        let host = client.client
        if parameters.resource != nil {
            throw OAuthError.invalidTarget("A mini-program's token is for this provider; name no resource.")
        }
        // With the issuer: a subject token meant for another resource server is not delegated.
        let resource = ProtectedResource(
            store: store, verifier: verifier, subjects: subjects, issuer: tokens.issuer)
        let subject: VerifiedAccessToken
        do {
            subject = try resource.verify(parameters.subjectToken)
        } catch {
            throw OAuthError.invalidRequest("The subject_token is not a live access token issued here.")
        }
        guard subject.clientID == host.id else {
            throw OAuthError.invalidRequest("The subject_token was issued to another client.")
        }
        guard subject.hasUser, subject.actorClientID == nil else {
            throw OAuthError.invalidRequest("The subject_token must be a person's own token at this host.")
        }
        guard subject.scopes.contains(AccountLinkScope.name) else {
            throw OAuthError.invalidRequest("The subject_token does not carry account_link.")
        }
        let miniProgram = try store.read { transaction throws -> Client in
            guard let record = try transaction.miniProgram(clientID: audience), record.hostClientID == host.id,
                record.isEnabled, let miniProgram = try transaction.client(id: audience)
            else { throw OAuthError.invalidTarget("The audience is not an enabled mini-program of this host.") }
            return miniProgram
        }
        let userID: String
        do {
            userID = try resource.admit(
                subject, acceptedScopes: [AccountLinkScope.name], challengeScope: AccountLinkScope.name
            ).1.id
        } catch let refused as OAuthError {
            // A token exchange names a bad subject token invalid_request (RFC 8693 §2.2.2).
            throw OAuthError.invalidRequest("The subject_token is not acceptable: \(refused.description)")
        }
        guard try store.read({ try $0.accountLink(hostClientID: host.id, platformUserID: userID) }) != nil else {
            throw OAuthError.invalidRequest("This person has no account link with this host app.")
        }
        let scopes = try narrowed(subject.scopes, requested: parameters.scopes, for: miniProgram)
        let now = now()
        var accessToken = TokenIssuer.AccessTokenGrant(
            subject: try subjects.recordedSubject(for: userID, client: miniProgram),
            clientID: miniProgram.id, scopes: scopes, authTime: subject.authTime,
            tokenID: TokenIssuer.makeTokenID(), issuedAt: now,
            expiresAt: min(now.addingTimeInterval(lifetimes.accessToken), subject.expiresAt))
        accessToken.additionalClaims["act"] = .object(["sub": .string(host.id)])
        return TokenIssuance(accessToken: accessToken, identity: nil, refreshToken: nil)
    }

    /// The subject's scopes that the mini-program is registered for, in the subject's order; with
    /// `scope`, exactly those, each of which must be among them.
    private func narrowed(_ held: [String], requested: [String]?, for miniProgram: Client) throws -> [String] {
        let allowed = Set(miniProgram.allowedScopes).subtracting(ClientRegistration.scopesNotForMiniPrograms)
        let available = held.filter(allowed.contains)
        guard let requested else {
            guard !available.isEmpty else {
                throw OAuthError.invalidScope("The subject_token carries no scope this mini-program is registered for.")
            }
            return available
        }
        guard !requested.isEmpty, requested.allSatisfy(available.contains) else {
            throw OAuthError.invalidScope(
                "The requested scope exceeds what the subject_token and the mini-program's registration allow.")
        }
        return requested
    }
}
