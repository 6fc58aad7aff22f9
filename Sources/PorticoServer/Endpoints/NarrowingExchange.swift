import Foundation
import PorticoCrypto
import PorticoStore

/// Token exchange's narrowing profile: a confidential client trades an access token issued to
/// it for one with fewer scopes and/or meant for one resource server (RFC 8693 with RFC 8707),
/// to hand a service no more than it needs.
///
/// The new token is never more than the old: scopes within the subject's, a resource the client
/// is registered for (and the subject's own if it was already narrowed to one), the same person
/// and session, and a lifetime that ends no later than the subject's. No refresh or ID token.
struct NarrowingExchange {
    private let store: any Store
    private let tokens: TokenIssuer
    private let lifetimes: TokenLifetimes
    private let now: @Sendable () -> Date
    private let verifier: AccessTokenVerifier

    init(_ dependencies: TokenGrantDependencies) {
        store = dependencies.store
        tokens = dependencies.tokens
        lifetimes = dependencies.lifetimes
        now = dependencies.now
        verifier = dependencies.accessTokens
    }

    func exchange(_ parameters: TokenExchangeGrant.Parameters, client: AuthenticatedClient) throws -> TokenIssuance {
        guard client.isConfidential else {
            throw OAuthError.unauthorizedClient("Only confidential clients may exchange access tokens.")
        }
        let subject: VerifiedAccessToken
        do {
            subject = try verifier.verify(parameters.subjectToken)
        } catch {
            throw OAuthError.invalidRequest("The subject_token is not a live access token issued here.")
        }
        guard subject.clientID == client.client.id else {
            throw OAuthError.invalidRequest("The subject_token was issued to another client.")
        }
        let scopes = parameters.scopes ?? subject.scopes
        guard !scopes.isEmpty, scopes.allSatisfy(subject.scopes.contains) else {
            throw OAuthError.invalidScope("The requested scope exceeds the scope of the subject_token.")
        }
        let issuer = tokens.issuer.current
        let (userID, audience) = try store.read { transaction throws -> (String, [String]) in
            var userID = subject.subject
            if subject.hasUser {
                if client.client.subjectType == .pairwise {
                    guard
                        let known = try transaction.userID(
                            pairwiseSubject: subject.subject,
                            sector: client.client.sectorIdentifier ?? client.client.id)
                    else { throw OAuthError.invalidRequest("The subject_token speaks for no known account.") }
                    userID = known
                }
                guard let user = try transaction.user(id: userID), !user.isDisabled else {
                    throw OAuthError.invalidRequest("The account behind the subject_token is not available.")
                }
            }
            guard try !verifier.isRevoked(subject, userID: userID, in: transaction) else {
                throw OAuthError.invalidRequest("The subject_token has been revoked.")
            }
            return (
                userID,
                try target(of: parameters, subject: subject, client: client.client, issuer: issuer, in: transaction)
            )
        }
        let now = now()
        var accessToken = TokenIssuer.AccessTokenGrant(
            subject: userID, clientID: client.client.id, scopes: scopes, authTime: subject.authTime,
            tokenID: TokenIssuer.makeTokenID(), issuedAt: now,
            expiresAt: min(now.addingTimeInterval(lifetimes.accessToken), subject.expiresAt))
        accessToken.audience = audience == [issuer] ? nil : audience
        if let sessionID = subject.sessionID { accessToken.additionalClaims["sid"] = .string(sessionID) }
        var issuance = TokenIssuance(accessToken: accessToken, identity: nil, refreshToken: nil)
        // A token bound to a key is exchanged only with a proof of that key, so that a copy of it
        // cannot be turned into a bearer token (``SenderConstraintStep``).
        issuance.requiredProofKey = subject.confirmationKey
        return issuance
    }

    /// The `aud` of the new token: the `resource` (or `audience`) asked for, which the client
    /// must be registered for; the subject's own when none is named. A subject already meant for
    /// one resource server cannot become a token for another, or for the provider.
    private func target(
        of parameters: TokenExchangeGrant.Parameters, subject: VerifiedAccessToken, client: Client, issuer: String,
        in transaction: any StoreTransaction
    ) throws -> [String] {
        if let resource = parameters.resource, let audience = parameters.audience, resource != audience {
            throw OAuthError.invalidTarget("Name one target: the resource and audience differ.")
        }
        guard let requested = parameters.resource ?? parameters.audience else { return subject.audience }
        let target =
            requested == issuer && parameters.resource == nil
            ? issuer : try ResourceIndicators.check(requested, for: client, in: transaction)
        guard subject.audience == [issuer] || subject.audience == [target] else {
            throw OAuthError.invalidTarget("The subject_token is meant for another resource; it cannot be widened.")
        }
        return [target]
    }
}
