import Foundation
import PorticoStore

// Sign-ups waiting for their e-mail address to be confirmed (migration 11).
@usableFromInline let signupColumns = "token_hash, email, name, postal_code, password_hash, created_at, expires_at"

@usableFromInline func decodeSignup(_ row: some SQLRow) throws -> PendingSignup {
    PendingSignup(
        hashedToken: try row.hashReference("token_hash"), email: try row.text("email"), name: try row.text("name"),
        postalCode: try row.optionalText("postal_code"), passwordHash: try row.text("password_hash"),
        createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"))
}

extension SQLTransaction {
    /// One statement: of two racing sign-ups for one address, the later one wins and the unique
    /// index never fails (SQLite's single writer; PostgreSQL's READ COMMITTED re-checks the
    /// conflicting row).
    @inlinable public func savePendingSignup(_ signup: PendingSignup) throws {
        try write(
            """
            INSERT INTO pending_signups (\(signupColumns), email_normalized) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
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

    /// The pending sign-up of a presented token, if any.
    @inlinable public func pendingSignup(token: String) throws -> PendingSignup? {
        try first(
            "SELECT \(signupColumns) FROM pending_signups WHERE token_hash = ?", [.digest(token)], decodeSignup)
    }

    /// One DELETE … RETURNING: whichever of two racing deletes removes the row has it.
    @inlinable public func redeemPendingSignup(token: String, now: Date) throws -> PendingSignupRedemption {
        guard
            let taken = try first(
                "DELETE FROM pending_signups WHERE token_hash = ? RETURNING \(signupColumns)", [.digest(token)],
                decodeSignup)
        else { return .notFound }
        return StoredTime.isExpired(taken.expiresAt, now: now) ? .expired : .redeemed(taken)
    }
}
