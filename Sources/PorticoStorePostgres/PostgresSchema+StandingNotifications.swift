extension PostgresSchema {
    /// The first version whose triggers notify `portico_standing` (``PostgresStandingFeed``).
    static let standingNotificationsVersion = 13

    /// Version 13 (a no-op on SQLite): triggers that `pg_notify('portico_standing', <table>)`
    /// whenever a committed change may alter what
    /// ``PostgresTransaction/accessTokenStanding(id:userID:clientID:issuedAt:)`` answers for a
    /// token that is not revoked and whose person exists, as far as the resource endpoints use
    /// it: a new or extended access-token or grant revocation, a person disabled or changed in a
    /// claim userinfo and the profile release (`email`, `name`, `postal_code`,
    /// `email_verified`), or removed.
    ///
    /// PostgreSQL sends a notification at commit (never for a rolled-back change), folds equal
    /// ones of one transaction into one, and delivers a session's own to it with its `COMMIT`'s
    /// answer. Row-level triggers, because statement-level ones fire also for statements that
    /// change no row (every purge, every `ON CONFLICT DO NOTHING`). Deleting revocations (the
    /// purge, after their tokens expired) cannot make an admitted token less admitted and does
    /// not notify; nor does a new password hash or `updated_at` (a sign-in rehashing an old hash
    /// writes both; caches keep no hash), nor anything of refresh families, sessions or sign-ins.
    /// A later migration that adds a column to `users` which a resource endpoint releases must
    /// replace `portico_users_standing`'s condition.
    static let version13 = [
        """
        CREATE FUNCTION portico_notify_standing() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('portico_standing', TG_TABLE_NAME);
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER portico_access_token_revocations_standing
            AFTER INSERT OR UPDATE ON access_token_revocations
            FOR EACH ROW EXECUTE FUNCTION portico_notify_standing()
        """,
        """
        CREATE TRIGGER portico_grant_revocations_standing
            AFTER INSERT OR UPDATE ON grant_revocations
            FOR EACH ROW EXECUTE FUNCTION portico_notify_standing()
        """,
        """
        CREATE TRIGGER portico_users_standing
            AFTER UPDATE ON users
            FOR EACH ROW
            WHEN ((OLD.email, OLD.name, OLD.postal_code, OLD.disabled, OLD.email_verified)
                IS DISTINCT FROM (NEW.email, NEW.name, NEW.postal_code, NEW.disabled, NEW.email_verified))
            EXECUTE FUNCTION portico_notify_standing()
        """,
        """
        CREATE TRIGGER portico_users_removed_standing
            AFTER DELETE ON users
            FOR EACH ROW EXECUTE FUNCTION portico_notify_standing()
        """,
    ]
}
