import PorticoStore

/// One thing every grant's tokens get between the grant's decision and the commit: the
/// audience a `resource` names, the companion session, the subject a pairwise client sees, and
/// (as features add them) a sender constraint or a session link.
///
/// Why steps, not code in the token endpoint: a grant decides *whether* a request gets tokens
/// (its code, its refresh token, its device approval); a step shapes *what* those tokens say,
/// the same way for every grant. Each step runs inside the grant's one write transaction, after
/// the grant's own checks and before the commit, so a step that refuses rolls the grant back
/// with it: a refused request changes nothing (a refresh token refused with `invalid_target`
/// still works afterwards, also past the retry grace). A feature adds a step by one line in
/// ``IssuancePipeline/standard(store:subjects:now:)``; neither the token endpoint nor a grant changes.
protocol IssuanceStep: Sendable {
    /// Whether this step could refuse `request` (it names a `resource`, a proof…).
    ///
    /// A grant that can commit in one statement before any step runs (the common refresh)
    /// takes that path only when no step could refuse, so that nothing refuses after a commit.
    func mayRefuse(_ request: TokenRequest) -> Bool

    /// Whether the step has anything to do for `issuance`; a grant that wrote nothing opens no
    /// transaction when no step does.
    func applies(to issuance: TokenIssuance, for request: TokenRequest) -> Bool

    /// Shapes `issuance` in the grant's transaction, or throws the ``OAuthError`` the request
    /// is refused with (which rolls back everything the grant did).
    func shape(_ issuance: inout TokenIssuance, for request: TokenRequest, in transaction: any StoreTransaction)
        throws

    /// Whether ``shape(_:for:in:)`` makes exactly one read call and writes nothing, so that a
    /// grant that already committed (the common refresh) runs it alone where that costs least
    /// (``Store/readOne(_:)``: one round trip on PostgreSQL, no write lock on SQLite) rather
    /// than in a write transaction.
    var readsOnce: Bool { get }

    /// Shapes `issuance` from what the grant already read, with no store at all, and says
    /// whether it could; when it could not, ``shape(_:for:in:)`` runs. A grant that read what a
    /// step needs in its own statement (the one-statement refresh reads the grant's last
    /// removal) so costs no trip more for the step.
    func shapeFromWhatIsKnown(_ issuance: inout TokenIssuance, for request: TokenRequest) -> Bool
}

extension IssuanceStep {
    /// Most steps may write (a pairwise subject is recorded), so they run in a transaction.
    var readsOnce: Bool { false }

    /// Most steps need the store.
    func shapeFromWhatIsKnown(_ issuance: inout TokenIssuance, for request: TokenRequest) -> Bool { false }
}
