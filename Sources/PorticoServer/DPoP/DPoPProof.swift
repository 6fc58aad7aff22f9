import Foundation
import PorticoCrypto
import PorticoStore

/// A DPoP proof (RFC 9449 §4) that passed every check of §4.3 but the replay check, which needs
/// the store (``DPoPStorage/recordDPoPProof(keyThumbprint:jti:expiresAt:)``) and is made where
/// the request commits.
///
/// What a token is bound to is ``keyThumbprint``: the RFC 7638 thumbprint of the public key the
/// client proved it holds, written into tokens as `cnf.jkt`.
struct DPoPProof: Sendable, Equatable {
    /// `jkt`: the SHA-256 thumbprint of the proof's `jwk`, base64url.
    let keyThumbprint: String
    /// `jti`, unique per key within the window.
    let jti: String
    /// Until when the proof could be accepted (its `iat` plus the window), and so how long its
    /// `jti` must be remembered.
    let acceptableUntil: Date
    /// What the proof was signed with (a client's profile may rule some out).
    let algorithm: SignatureAlgorithm

    /// Records the proof as used in `transaction`; false when it was used before (on any node).
    func recordFirstUse(in transaction: some DPoPStorage) throws -> Bool {
        try transaction.recordDPoPProof(keyThumbprint: keyThumbprint, jti: jti, expiresAt: acceptableUntil)
    }

    /// What a replayed proof is told.
    static let replayed = DPoPProofChecker.Problem.invalid("The DPoP proof has been used before.")
}
