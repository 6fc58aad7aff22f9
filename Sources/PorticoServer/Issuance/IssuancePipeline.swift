import Foundation
import PorticoStore

/// The ordered ``IssuanceStep``s every grant's tokens go through before the grant commits.
///
/// A grant decides in its write transaction and calls ``shape(_:for:in:)`` there, after its own
/// checks and before it returns, so the grant and the steps commit or roll back as one. A grant
/// that writes nothing (client credentials, narrowing, delegation) or that committed in one
/// statement no step could refuse (see ``IssuanceStep/mayRefuse(_:)``) calls
/// ``shape(_:for:)``, which opens a transaction only when a step applies. Signing comes after
/// either: nothing is signed for a request that did not commit.
struct IssuancePipeline: Sendable {
    /// The steps, in the order they run.
    let steps: [any IssuanceStep]
    /// Where a grant that wrote nothing lets the steps write.
    let store: any Store

    /// The provider's steps, one line each, in order. A step that rewrites `sub` (pairwise)
    /// comes after every step that reads the account id from it.
    static func standard(store: any Store, subjects: PairwiseSubjects, now: @escaping @Sendable () -> Date)
        -> IssuancePipeline
    {
        IssuancePipeline(
            steps: [
                AudienceStep(),
                RevocationOrderStep(),
                CompanionSessionStep(now: now),
                PairwiseSubjectStep(subjects: subjects),
                SenderConstraintStep(),
                SignInCountStep(now: now),
            ], store: store)
    }

    /// Whether any step could refuse `request`.
    func mayRefuse(_ request: TokenRequest) -> Bool {
        steps.contains { $0.mayRefuse(request) }
    }

    /// Runs every step that applies, in order, in the grant's `transaction`.
    func shape(_ issuance: inout TokenIssuance, for request: TokenRequest, in transaction: any StoreTransaction)
        throws
    {
        for step in steps where step.applies(to: issuance, for: request) {
            if !step.shapeFromWhatIsKnown(&issuance, for: request) {
                try step.shape(&issuance, for: request, in: transaction)
            }
        }
    }

    /// Runs every step that applies in a transaction of its own, opened only when one does: for
    /// a grant that wrote nothing, or committed in one statement that no step could refuse. A
    /// step that can shape from what the grant already read
    /// (``IssuanceStep/shapeFromWhatIsKnown(_:for:)``) costs no trip; a lone step that only
    /// makes one read (``IssuanceStep/readsOnce``) runs as that one read.
    func shape(_ issuance: inout TokenIssuance, for request: TokenRequest) throws {
        var applicable = steps.filter { $0.applies(to: issuance, for: request) }
        // Steps that need no store shape in order, up to the first that does; from there on the
        // rest run in order in the store (each still trying what is known first).
        while let next = applicable.first, next.shapeFromWhatIsKnown(&issuance, for: request) {
            applicable.removeFirst()
        }
        guard let first = applicable.first else { return }
        if applicable.count == 1, first.readsOnce {
            let unshaped = issuance
            issuance = try store.readOne { transaction throws -> TokenIssuance in
                var shaped = unshaped
                try first.shape(&shaped, for: request, in: transaction)
                return shaped
            }
            return
        }
        let unshaped = issuance
        let remaining = applicable
        issuance = try store.transaction { transaction throws -> TokenIssuance in
            var shaped = unshaped
            for step in remaining where !step.shapeFromWhatIsKnown(&shaped, for: request) {
                try step.shape(&shaped, for: request, in: transaction)
            }
            return shaped
        }
    }
}
