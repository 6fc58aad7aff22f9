import Foundation
import PorticoHTTP
import PorticoStore

/// Account link's endpoints (DESIGN, "Account link"), composed in one place: the host's
/// `/oauth/account-links`.
///
/// The rest of the feature is mounted elsewhere on purpose: the mini-program delegation is a
/// profile of the token-exchange grant (``TokenExchangeGrant``, in the ``TokenGrantRegistry``),
/// and the person's "Linked accounts" section and unlink page are Your Account's pages.
enum AccountLinkRoutes {
    /// What the host's endpoint uses of the provider, and nothing more.
    struct Parts: Sendable {
        /// The store every node shares.
        let store: any Store
        /// Authenticates the host client.
        let authenticator: ClientAuthenticator
        /// Reads the access token a host presents for the person it links.
        let verifier: AccessTokenVerifier
        /// The subjects pairwise clients see.
        let subjects: PairwiseSubjects
        /// Lifetimes of the tokens an unbind revokes.
        let lifetimes: TokenLifetimes
        /// The clock.
        let now: @Sendable () -> Date
        /// The issuer, which a presented token must name.
        let issuerIdentifier: IssuerIdentifier
        /// Whether a route that touches the store runs on an epoll thread or the worker pool.
        let execution: RouteExecution
    }

    /// Registers `POST,GET /oauth/account-links` and `DELETE /oauth/account-links/{link_id}`.
    static func register(on router: Router, parts: Parts) {
        AccountLinkEndpoint(
            store: parts.store, authenticator: parts.authenticator, verifier: parts.verifier, subjects: parts.subjects,
            lifetimes: parts.lifetimes, now: parts.now, issuer: parts.issuerIdentifier
        ).register(on: router, execution: parts.execution)
    }
}
