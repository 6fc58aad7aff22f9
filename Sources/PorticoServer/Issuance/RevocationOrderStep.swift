import Foundation
import PorticoStore

/// Stamps a person's access token after the last removal of their grant to the client, so that
/// a token minted in the same second as a removal, but after it, is not dead on arrival.
///
/// Why: a removal (Remove in Your Account, a password reset, a replayed code…) refuses every
/// access token of that person and client issued at or before it (``GrantRevocation``), and
/// both the token's `iat` and the stored removal are whole seconds. A new sign-in right after
/// a removal would otherwise mint tokens that `revoked_at >= iat` refuses at once. This step
/// reads the recorded removal in the grant's transaction and, when it is at or past the token's
/// second, stamps the token one second after it (and moves `exp` with it, so the lifetime is
/// unchanged). The safe direction holds: a token issued *before* a removal has an `iat` at or
/// below the removal's second and stays refused, and a removal recorded in the same second as
/// an earlier one moves one second past it
/// (``AccessTokenRevocationStorage/revokeGrant(userID:clientID:at:expiresAt:)``), so it still
/// catches the tokens stamped past the earlier one.
///
/// The cost: such a token's `iat` is up to a second ahead of the clock (more only when one
/// grant is removed several times in one second), well within the 5 s skew verifiers allow.
/// It runs before ``PairwiseSubjectStep``, while `sub` is still the account id.
struct RevocationOrderStep: IssuanceStep {
    /// One lookup of the grant's removal, nothing written: a committed refresh reads it alone.
    var readsOnce: Bool { true }

    func mayRefuse(_ request: TokenRequest) -> Bool {
        false
    }

    func applies(to issuance: TokenIssuance, for request: TokenRequest) -> Bool {
        issuance.accessToken.authTime != nil
    }

    func shape(_ issuance: inout TokenIssuance, for request: TokenRequest, in transaction: any StoreTransaction)
        throws
    {
        let token = issuance.accessToken
        Self.order(
            &issuance, after: try transaction.grantRevocationTime(userID: token.subject, clientID: token.clientID))
    }

    /// The one-statement refresh read the removal with its rotation: no trip for this step.
    func shapeFromWhatIsKnown(_ issuance: inout TokenIssuance, for request: TokenRequest) -> Bool {
        guard let known = issuance.knownGrantRevocation else { return false }
        switch known {
        case .never: break
        case .at(let revokedAt): Self.order(&issuance, after: revokedAt)
        }
        return true
    }

    /// Stamps the access token one second after `revokedAt` when it is not already past it.
    private static func order(_ issuance: inout TokenIssuance, after revokedAt: Date?) {
        let token = issuance.accessToken
        guard let revokedAt, StoredTime.seconds(revokedAt) >= StoredTime.seconds(token.issuedAt) else { return }
        let stamped = StoredTime.stored(revokedAt).addingTimeInterval(1)
        let shift = stamped.timeIntervalSince(token.issuedAt)
        issuance.accessToken.issuedAt = stamped
        issuance.accessToken.expiresAt = token.expiresAt.addingTimeInterval(shift)
    }
}

/// What a grant read of the last removal of its grant, carried to ``RevocationOrderStep``.
enum KnownGrantRevocation: Sendable {
    /// The grant was never removed (or its removal has been purged).
    case never
    /// The grant was last removed at this time.
    case at(Date)
}
