import Foundation
import PorticoStore

// Passkeys (migration 16).
@usableFromInline let passkeyColumns =
    "credential_id, user_id, public_key, algorithm, sign_count, backup_eligible, backed_up, name, created_at, last_used_at"

extension SQLTransaction {
    @inlinable func decodePasskey(_ row: Row) throws -> PasskeyCredential {
        PasskeyCredential(
            credentialID: try row.bytes("credential_id"), userID: try row.text("user_id"),
            publicKey: try row.bytes("public_key"), algorithm: try row.integer("algorithm"),
            signCount: try row.integer("sign_count"), backupEligible: try row.bool("backup_eligible"),
            backedUp: try row.bool("backed_up"), name: try row.text("name"), createdAt: try row.date("created_at"),
            lastUsedAt: try row.optionalDate("last_used_at"))
    }

    /// ``PasskeyStorage/passkeyUserHandle(userID:)``, for every SQL backend.
    @inlinable public func passkeyUserHandle(userID: String) throws -> [UInt8]? {
        try first("SELECT handle FROM passkey_user_handles WHERE user_id = ?", [.text(userID)]) {
            try $0.bytes("handle")
        }
    }

    /// ``PasskeyStorage/assignPasskeyUserHandle(userID:handle:)``, for every SQL backend.
    @inlinable public func assignPasskeyUserHandle(userID: String, handle: [UInt8]) throws -> [UInt8] {
        try write(
            "INSERT INTO passkey_user_handles (user_id, handle) VALUES (?, ?) ON CONFLICT (user_id) DO NOTHING",
            [.text(userID), .bytes(handle)], referring: "user")
        return try passkeyUserHandle(userID: userID) ?? handle
    }

    /// ``PasskeyStorage/userID(passkeyUserHandle:)``, for every SQL backend.
    @inlinable public func userID(passkeyUserHandle handle: [UInt8]) throws -> String? {
        try first("SELECT user_id FROM passkey_user_handles WHERE handle = ?", [.bytes(handle)]) {
            try $0.text("user_id")
        }
    }

    /// ``PasskeyStorage`` `insert(_:)` of a credential, for every SQL backend.
    @inlinable public func insert(_ credential: PasskeyCredential) throws {
        try write(
            "INSERT INTO passkey_credentials (\(passkeyColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .bytes(credential.credentialID), .text(credential.userID), .bytes(credential.publicKey),
                .integer(credential.algorithm), .integer(credential.signCount), .bool(credential.backupEligible),
                .bool(credential.backedUp), .text(credential.name), .date(credential.createdAt),
                .date(credential.lastUsedAt),
            ], referring: "user")
    }

    /// ``PasskeyStorage/passkeyCredential(id:)``, for every SQL backend.
    @inlinable public func passkeyCredential(id: [UInt8]) throws -> PasskeyCredential? {
        try first("SELECT \(passkeyColumns) FROM passkey_credentials WHERE credential_id = ?", [.bytes(id)]) {
            try decodePasskey($0)
        }
    }

    /// ``PasskeyStorage/passkeyCredentials(userID:)``, for every SQL backend.
    @inlinable public func passkeyCredentials(userID: String) throws -> [PasskeyCredential] {
        try all(
            "SELECT \(passkeyColumns) FROM passkey_credentials WHERE user_id = ? ORDER BY created_at, credential_id",
            [.text(userID)]
        ) { try decodePasskey($0) }
    }

    /// ``PasskeyStorage/recordPasskeyUse(credentialID:previousSignCount:signCount:backedUp:at:)``.
    @inlinable public func recordPasskeyUse(
        credentialID: [UInt8], previousSignCount: Int64, signCount: Int64, backedUp: Bool, at time: Date
    ) throws -> Bool {
        try write(
            """
            UPDATE passkey_credentials SET sign_count = ?, backed_up = ?, last_used_at = ?
            WHERE credential_id = ? AND sign_count = ?
            """,
            [.integer(signCount), .bool(backedUp), .date(time), .bytes(credentialID), .integer(previousSignCount)]) > 0
    }

    /// ``PasskeyStorage/renamePasskey(userID:credentialID:name:)``, for every SQL backend.
    @inlinable public func renamePasskey(userID: String, credentialID: [UInt8], name: String) throws -> Bool {
        try write(
            "UPDATE passkey_credentials SET name = ? WHERE user_id = ? AND credential_id = ?",
            [.text(name), .text(userID), .bytes(credentialID)]) > 0
    }

    /// ``PasskeyStorage/deletePasskey(userID:credentialID:)``, for every SQL backend.
    @inlinable public func deletePasskey(userID: String, credentialID: [UInt8]) throws -> Bool {
        try write(
            "DELETE FROM passkey_credentials WHERE user_id = ? AND credential_id = ?",
            [.text(userID), .bytes(credentialID)]) > 0
    }

    /// ``PasskeyStorage`` `insert(_:now:)` of a challenge, for every SQL backend.
    @inlinable public func insert(_ challenge: PasskeyChallenge, now: Date) throws {
        try write("DELETE FROM passkey_challenges WHERE expires_at <= ?", [.date(now)])
        try write(
            """
            INSERT INTO passkey_challenges (challenge_hash, purpose, user_id, created_at, expires_at)
            VALUES (?, ?, ?, ?, ?)
            """,
            [
                .bytes(challenge.challengeHash), .text(challenge.purpose.rawValue), .text(challenge.userID),
                .date(challenge.createdAt), .date(challenge.expiresAt),
            ], referring: "user")
    }

    /// ``PasskeyStorage/claimPasskeyChallenge(_:now:)``, for every SQL backend: one insert that
    /// does nothing on a recorded hash (`ON CONFLICT … DO NOTHING`, alike in SQLite and
    /// PostgreSQL), so a replay neither fails the transaction nor writes. Expired records are the
    /// background purge's (``purgeExpired(now:)``): deleting them here put every sign-in in line
    /// behind the others' deletes on PostgreSQL.
    @inlinable public func claimPasskeyChallenge(_ challenge: PasskeyChallenge, now: Date) throws -> Bool {
        try write(
            """
            INSERT INTO passkey_challenges (challenge_hash, purpose, user_id, created_at, expires_at)
            VALUES (?, ?, ?, ?, ?) ON CONFLICT (challenge_hash) DO NOTHING
            """,
            [
                .bytes(challenge.challengeHash), .text(challenge.purpose.rawValue), .text(challenge.userID),
                .date(challenge.createdAt), .date(challenge.expiresAt),
            ], referring: "user") > 0
    }

    /// ``PasskeyStorage/consumePasskeyChallenge(hash:purpose:now:)``, for every SQL backend.
    @inlinable public func consumePasskeyChallenge(hash: [UInt8], purpose: PasskeyChallenge.Purpose, now: Date)
        throws -> PasskeyChallenge?
    {
        let found = try first(
            """
            SELECT challenge_hash, purpose, user_id, created_at, expires_at FROM passkey_challenges
            WHERE challenge_hash = ? AND purpose = ? AND expires_at > ?
            """,
            [.bytes(hash), .text(purpose.rawValue), .date(now)]
        ) { row in
            PasskeyChallenge(
                challengeHash: try row.bytes("challenge_hash"), purpose: purpose,
                userID: try row.optionalText("user_id"),
                createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"))
        }
        guard let found else { return nil }
        let taken = try write(
            "DELETE FROM passkey_challenges WHERE challenge_hash = ? AND purpose = ? AND expires_at > ?",
            [.bytes(hash), .text(purpose.rawValue), .date(now)])
        return taken > 0 ? found : nil
    }
}
