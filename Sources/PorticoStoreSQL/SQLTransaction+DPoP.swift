import Foundation
import PorticoStore

// DPoP proofs seen and refresh families bound to a key (migration 18).
extension SQLTransaction {
    /// ``DPoPStorage/recordDPoPProof(keyThumbprint:jti:expiresAt:)``: one insert that does
    /// nothing on a replay; expired rows are the purger's.
    @inlinable public func recordDPoPProof(keyThumbprint: String, jti: String, expiresAt: Date) throws -> Bool {
        let inserted = try write(
            "INSERT INTO dpop_proofs (proof_hash, expires_at) VALUES (?, ?) ON CONFLICT (proof_hash) DO NOTHING",
            [Self.proofHash(keyThumbprint: keyThumbprint, jti: jti), .date(expiresAt)])
        return inserted > 0
    }

    /// The column `dpop_proofs.proof_hash` of a key's `jti`: only a hash is kept.
    @inlinable public static func proofHash(keyThumbprint: String, jti: String) -> SQLValue {
        .digest(keyThumbprint + " " + jti)
    }

    /// ``DPoPStorage/bindRefreshFamily(_:toKey:)``.
    @inlinable public func bindRefreshFamily(_ familyID: String, toKey keyThumbprint: String) throws {
        try write(
            "INSERT INTO refresh_family_keys (family_id, jkt) VALUES (?, ?) ON CONFLICT (family_id) DO NOTHING",
            [.text(familyID), .text(keyThumbprint)], referring: "refresh family")
    }

    /// ``DPoPStorage/boundKey(refreshFamilyID:)``.
    @inlinable public func boundKey(refreshFamilyID familyID: String) throws -> String? {
        try first("SELECT jkt FROM refresh_family_keys WHERE family_id = ?", [.text(familyID)]) { try $0.text("jkt") }
    }
}
