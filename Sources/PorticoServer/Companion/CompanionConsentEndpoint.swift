import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `POST /oauth/companion/consent`: the person's answer to a ticket of
/// ``CompanionAuthorizationEndpoint``, brought by the same companion session.
///
/// Form: `ticket`, `decision=allow|deny`. The ticket is redeemed once, atomically, only by the
/// session it was handed to and before it expires; anything else is `invalid_ticket`. Allow on
/// a `consent` ticket adds the scopes to what the person granted the app (consent only grows,
/// as on the consent page) and answers the code; on a `continue` ticket the remembered consent
/// must still cover the request (else `consent_required`: the person removed the app meanwhile).
/// Deny answers `access_denied` with the app's `state`. JSON shapes: ``CompanionAnswer``.
struct CompanionConsentEndpoint: Sendable {
    /// The endpoint's path.
    static let path = "/oauth/companion/consent"

    /// The store, keys, clock, issuer and bearer-token gate (``CompanionRoutes/Parts``).
    let parts: CompanionRoutes.Parts
    /// The companion counters.
    let metrics: CompanionMetrics

    /// A ticket that cannot be redeemed.
    static let invalidTicket = OAuthError(
        code: "invalid_ticket",
        description: "The ticket is unknown, already used, expired, or was handed to another companion session.",
        status: .badRequest)

    /// Registers `POST` where the store's handlers run.
    func register(on router: Router) {
        parts.execution.post(Self.path, on: router) { request in handle(request) }
    }

    /// Answers one request; every failure is JSON.
    func handle(_ request: Request) -> Response {
        let response = OAuthEndpoint.respond {
            do {
                let (response, decision) = try answer(request)
                metrics.record(decision)
                return response
            } catch {
                metrics.record(.refused)
                throw error
            }
        }
        // A proof's nonce travels with every answer when nonces are required (RFC 9449 §8.2).
        return parts.resource.supplyingNonce(response, to: request)
    }

    private func answer(_ request: Request) throws -> (Response, CompanionMetrics.Decision) {
        let caller = try CompanionCaller.authenticate(request, resource: parts.resource)
        let parameters = try OAuthParameters(formOf: request)
        let ticket = try parameters.required("ticket")
        let decision = try parameters.required("decision")
        guard decision == "allow" || decision == "deny" else {
            throw OAuthError.invalidRequest("The decision must be allow or deny.")
        }
        let now = parts.now()
        guard
            let stored = try parts.store.transaction({ transaction in
                try transaction.consumeCompanionTicket(ticket, sessionID: caller.session.id, now: now)
            }), let kind = CompanionAnswer.Kind(rawValue: stored.kind)
        else { throw Self.invalidTicket }
        let pending: PendingAuthorizationRequest
        do {
            pending = try AuthorizationFlow.pendingRequest(
                stored.request, keys: parts.keys, store: parts.store, now: parts.now)
        } catch let problem as PageProblem {
            throw CompanionAnswer.untrusted(problem)
        }
        let (authorization, client) = (pending.request, pending.client)
        guard decision == "allow" else {
            try parts.store.transaction { transaction in
                try transaction.append(
                    CompanionCode.auditEvent("companion.deny", caller: caller, clientID: client.id, now: now))
            }
            return (CompanionAnswer.failure(.accessDenied, state: authorization.state, issuer: parts.issuer), .deny)
        }
        guard authorization.acceptsAuthentication(at: caller.authTime) else {
            return (
                CompanionAnswer.failure(
                    CompanionAuthorizationEndpoint.loginRequired, state: authorization.state, issuer: parts.issuer),
                .refused
            )
        }
        let code = try parts.store.transaction { transaction throws -> String? in
            switch kind {
            case .consent:
                try ConsentPolicy().grant(
                    userID: caller.user.id, clientID: client.id, scopes: Set(authorization.scopes), in: transaction,
                    now: now)
            case .continue:
                guard let consent = try transaction.consent(userID: caller.user.id, clientID: client.id),
                    try authorization.scopes.allSatisfy(
                        AccountLinkConsent.standingScopes(of: consent, for: client, in: transaction).contains)
                else { return nil }
            }
            let code = try CompanionCode.issue(
                for: authorization, caller: caller, codeLifetime: parts.lifetimes.authorizationCode, now: now,
                in: transaction)
            try transaction.append(
                CompanionCode.auditEvent(
                    "companion.allow", caller: caller, clientID: client.id, now: now,
                    details: [
                        "kind": .string(kind.rawValue), "scopes": .string(authorization.scopes.joined(separator: " ")),
                    ]))
            return code
        }
        guard let code else {
            return (
                CompanionAnswer.failure(.consentRequired, state: authorization.state, issuer: parts.issuer), .refused
            )
        }
        return (CompanionAnswer.code(code, for: authorization, issuer: parts.issuer), .allow)
    }
}
