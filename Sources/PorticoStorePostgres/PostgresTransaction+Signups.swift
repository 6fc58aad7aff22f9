import Foundation
import PorticoStore

// Sign-ups waiting for their e-mail address to be confirmed (migration 11).
extension PostgresTransaction {
    private static let signupColumns =
        "token_hash, email, name, postal_code, password_hash, created_at, expires_at"

    private static func decodeSignup(_ row: PostgresRow) throws -> PendingSignup {
        PendingSignup(
            hashedToken: try row.hashReference(0), email: row.text(1), name: row.text(2),
            postalCode: row.optionalText(3), passwordHash: row.text(4), createdAt: try row.date(5),
            expiresAt: try row.date(6))
    }

    func savePendingSignup(_ signup: PendingSignup) throws {
        // One statement: of two racing sign-ups for one address, the later update wins and the
        // unique index never fails (READ COMMITTED re-checks the conflicting row).
        try write(
            """
            INSERT INTO pending_signups (\(Self.signupColumns), email_normalized) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (email_normalized) DO UPDATE SET token_hash = excluded.token_hash, email = excluded.email,
                name = excluded.name, postal_code = excluded.postal_code, password_hash = excluded.password_hash,
                created_at = excluded.created_at, expires_at = excluded.expires_at
            """,
            [
                .hash(reference: signup.hashedToken), .text(signup.email), .text(signup.name),
                .text(signup.postalCode), .text(signup.passwordHash), .date(signup.createdAt),
                .date(signup.expiresAt), .text(UserRecord.normalizedEmail(signup.email)),
            ])
    }

    func pendingSignup(token: String) throws -> PendingSignup? {
        try first(
            "SELECT \(Self.signupColumns) FROM pending_signups WHERE token_hash = ?", [.digest(token)],
            Self.decodeSignup)
    }

    func redeemPendingSignup(token: String, now: Date) throws -> PendingSignupRedemption {
        // One DELETE … RETURNING: the row lock lets exactly one of two racing deletes return it.
        guard
            let taken = try first(
                "DELETE FROM pending_signups WHERE token_hash = ? RETURNING \(Self.signupColumns)", [.digest(token)],
                Self.decodeSignup)
        else { return .notFound }
        return StoredTime.isExpired(taken.expiresAt, now: now) ? .expired : .redeemed(taken)
    }
}
