import Foundation

/// What sender-constrained tokens (DPoP, RFC 9449) need from the store: the proofs already
/// seen, so that each is accepted once on every node, and the key a public client's refresh
/// family is bound to.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol DPoPStorage {
    /// Records that a proof with `jti` was made with the key of thumbprint `keyThumbprint`,
    /// remembered until `expiresAt` (after which the proof's `iat` refuses it anyway); returns
    /// false, writing nothing, when the same key's `jti` is already recorded (a replay). Only a
    /// hash is kept. One conditional insert: of two racing calls with one `jti`, on one node or
    /// two, exactly one returns true.
    func recordDPoPProof(keyThumbprint: String, jti: String, expiresAt: Date) throws -> Bool

    /// Binds refresh family `familyID` to the key of thumbprint `keyThumbprint`, so that its
    /// refresh tokens are refused without a proof made with that key (RFC 9449 §5). Binding
    /// a family already bound keeps the first key; the record goes with the family.
    func bindRefreshFamily(_ familyID: String, toKey keyThumbprint: String) throws

    /// The thumbprint of the key family `familyID` is bound to, or nil when it is a bearer family.
    func boundKey(refreshFamilyID familyID: String) throws -> String?
}
