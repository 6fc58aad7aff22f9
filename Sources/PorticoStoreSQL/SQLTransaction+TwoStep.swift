import Foundation
import PorticoStore

// Two-step verification (migration 12).
@usableFromInline let enrollmentColumns = "user_id, secret, created_at, confirmed_at, last_step"
@usableFromInline let pendingColumns =
    "id_hash, user_id, persistent, request, return_path, created_at, expires_at"

extension SQLTransaction {
    /// ``TwoStepStorage/savePendingTwoStepEnrollment(_:)``, for every SQL backend.
    @inlinable public func savePendingTwoStepEnrollment(_ enrollment: TwoStepEnrollment) throws -> Bool {
        try write(
            """
            INSERT INTO two_step_enrollments (\(enrollmentColumns)) VALUES (?, ?, ?, NULL, NULL)
            ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at,
                last_step = NULL
            WHERE two_step_enrollments.confirmed_at IS NULL
            """,
            [.text(enrollment.userID), .text(enrollment.sealedSecret), .date(enrollment.createdAt)],
            referring: "user") > 0
    }

    /// ``TwoStepStorage/twoStepEnrollment(userID:)``, for every SQL backend.
    @inlinable public func twoStepEnrollment(userID: String) throws -> TwoStepEnrollment? {
        try first(
            "SELECT \(enrollmentColumns) FROM two_step_enrollments WHERE user_id = ?", [.text(userID)]
        ) { row in
            TwoStepEnrollment(
                userID: try row.text("user_id"), sealedSecret: try row.text("secret"),
                createdAt: try row.date("created_at"), confirmedAt: try row.optionalDate("confirmed_at"),
                lastUsedStep: try row.optionalInteger("last_step"))
        }
    }

    /// ``TwoStepStorage/confirmTwoStepEnrollment(userID:sealedSecret:step:at:)``, for every SQL backend.
    @inlinable public func confirmTwoStepEnrollment(userID: String, sealedSecret: String, step: Int64, at time: Date)
        throws
        -> Bool
    {
        try write(
            """
            UPDATE two_step_enrollments SET confirmed_at = ?, last_step = ?
            WHERE user_id = ? AND secret = ? AND confirmed_at IS NULL
            """,
            [.date(time), .integer(step), .text(userID), .text(sealedSecret)]) > 0
    }

    /// ``TwoStepStorage/useTwoStepStep(userID:step:)``, for every SQL backend.
    @inlinable public func useTwoStepStep(userID: String, step: Int64) throws -> Bool {
        try write(
            """
            UPDATE two_step_enrollments SET last_step = ?
            WHERE user_id = ? AND confirmed_at IS NOT NULL AND (last_step IS NULL OR last_step < ?)
            """,
            [.integer(step), .text(userID), .integer(step)]) > 0
    }

    /// ``TwoStepStorage/deleteTwoStepEnrollment(userID:)``, for every SQL backend.
    @inlinable public func deleteTwoStepEnrollment(userID: String) throws -> Bool {
        try write("DELETE FROM two_step_recovery_codes WHERE user_id = ?", [.text(userID)])
        return try write("DELETE FROM two_step_enrollments WHERE user_id = ?", [.text(userID)]) > 0
    }

    /// ``TwoStepStorage/replaceRecoveryCodes(userID:hashes:at:)``, for every SQL backend.
    @inlinable public func replaceRecoveryCodes(userID: String, hashes: [[UInt8]], at time: Date) throws {
        try write("DELETE FROM two_step_recovery_codes WHERE user_id = ?", [.text(userID)])
        for hash in hashes {
            try write(
                "INSERT INTO two_step_recovery_codes (user_id, code_hash, created_at, used_at) VALUES (?, ?, ?, NULL)",
                [.text(userID), .bytes(hash), .date(time)], referring: "user")
        }
    }

    /// ``TwoStepStorage/useRecoveryCode(userID:hash:at:)``, for every SQL backend.
    @inlinable public func useRecoveryCode(userID: String, hash: [UInt8], at time: Date) throws -> Bool {
        try write(
            """
            UPDATE two_step_recovery_codes SET used_at = ?
            WHERE user_id = ? AND code_hash = ? AND used_at IS NULL
            """,
            [.date(time), .text(userID), .bytes(hash)]) > 0
    }

    /// ``TwoStepStorage/unusedRecoveryCodeCount(userID:)``, for every SQL backend.
    @inlinable public func unusedRecoveryCodeCount(userID: String) throws -> Int {
        try first(
            "SELECT count(*) AS unused FROM two_step_recovery_codes WHERE user_id = ? AND used_at IS NULL",
            [.text(userID)]
        ) { try $0.int("unused") } ?? 0
    }

    /// ``TwoStepStorage/insert(_:now:)``, for every SQL backend.
    @inlinable public func insert(_ pending: PendingSecondStep, now: Date) throws {
        try write("DELETE FROM two_step_sign_ins WHERE expires_at <= ?", [.date(now)])
        try write(
            "INSERT INTO two_step_sign_ins (\(pendingColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .hash(reference: pending.hashedID), .text(pending.userID), .bool(pending.isPersistent),
                .text(pending.sealedRequest), .text(pending.returnPath), .date(pending.createdAt),
                .date(pending.expiresAt),
            ], referring: "user")
    }

    /// ``TwoStepStorage/pendingSecondStep(token:now:)``, for every SQL backend.
    @inlinable public func pendingSecondStep(token: String, now: Date) throws -> PendingSecondStep? {
        try first(
            "SELECT \(pendingColumns) FROM two_step_sign_ins WHERE id_hash = ? AND expires_at > ?",
            [.bytes(SecretHash.digest(token)), .date(now)]
        ) { row in
            PendingSecondStep(
                hashedID: try row.hashReference("id_hash"), userID: try row.text("user_id"),
                isPersistent: try row.bool("persistent"), sealedRequest: try row.optionalText("request"),
                returnPath: try row.optionalText("return_path"), createdAt: try row.date("created_at"),
                expiresAt: try row.date("expires_at"))
        }
    }

    /// ``TwoStepStorage/deletePendingSecondStep(token:)``, for every SQL backend.
    @inlinable public func deletePendingSecondStep(token: String) throws -> Bool {
        try write("DELETE FROM two_step_sign_ins WHERE id_hash = ?", [.bytes(SecretHash.digest(token))]) > 0
    }

    /// ``TwoStepStorage/recordAuthenticationMethods(_:forSessionHashedID:)``, for every SQL backend.
    @inlinable public func recordAuthenticationMethods(_ methods: [String], forSessionHashedID hashedID: String) throws
    {
        try write(
            """
            INSERT INTO session_methods (session_hash, methods) VALUES (?, ?)
            ON CONFLICT (session_hash) DO UPDATE SET methods = excluded.methods
            """,
            [.hash(reference: hashedID), .text(methods.joined(separator: " "))], referring: "session")
    }

    /// ``TwoStepStorage/authenticationMethods(sessionHashedID:)``, for every SQL backend.
    @inlinable public func authenticationMethods(sessionHashedID hashedID: String) throws -> [String]? {
        try first("SELECT methods FROM session_methods WHERE session_hash = ?", [.hash(reference: hashedID)]) {
            try $0.text("methods").split(separator: " ").map(String.init)
        }
    }

    /// ``TwoStepStorage/recordAuthenticationMethods(_:forRefreshFamily:)``, for every SQL backend.
    @inlinable public func recordAuthenticationMethods(_ methods: [String], forRefreshFamily familyID: String) throws {
        try write(
            """
            INSERT INTO refresh_family_methods (family_id, methods) VALUES (?, ?)
            ON CONFLICT (family_id) DO UPDATE SET methods = excluded.methods
            """,
            [.text(familyID), .text(methods.joined(separator: " "))], referring: "refresh family")
    }

    /// ``TwoStepStorage/authenticationMethods(refreshFamilyID:)``, for every SQL backend.
    @inlinable public func authenticationMethods(refreshFamilyID familyID: String) throws -> [String]? {
        try first("SELECT methods FROM refresh_family_methods WHERE family_id = ?", [.text(familyID)]) {
            try $0.text("methods").split(separator: " ").map(String.init)
        }
    }
}
