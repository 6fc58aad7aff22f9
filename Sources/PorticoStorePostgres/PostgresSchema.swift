import Foundation
import PorticoStore
import PorticoStoreSQL

/// The PostgreSQL schema as forward-only migrations, numbered and meaning what SQLite's do.
///
/// Version N here has the tables, columns, keys and cascades of SQLite's version N, in
/// PostgreSQL's types: `bytea` for hashes, `boolean` for flags, `bigint` whole Unix seconds for
/// times (SQLite's precision exactly, so both backends truncate and compare the same instants),
/// JSON text for lists. What cannot be written the same way: SQLite's `rowid` slices become
/// slices by primary key (`purge_positions.last_key`), `AUTOINCREMENT` an identity column, and
/// the append-only audit log's triggers PL/pgSQL.
///
/// The version is the highest in `schema_migrations` (PostgreSQL has no `user_version`); every
/// migration runs in one transaction under an advisory lock, so two nodes starting at once on an
/// empty database apply each migration once, and a failed one leaves nothing behind (PostgreSQL's
/// DDL is transactional).
enum PostgresSchema {
    struct Migration {
        let version: Int
        let statements: [String]
    }

    static let migrations: [Migration] = [
        Migration(version: 1, statements: version1),
        Migration(version: 2, statements: version2),
        Migration(version: 3, statements: version3),
        Migration(version: 4, statements: version4),
        Migration(version: 5, statements: version5),
        Migration(version: 6, statements: version6),
        Migration(version: 7, statements: version7),
        Migration(version: 8, statements: version8),
        Migration(version: 9, statements: version9),
        Migration(version: 10, statements: version10),
        Migration(version: 11, statements: version11),
        Migration(version: 12, statements: version12),
        Migration(version: 13, statements: version13),
        Migration(version: 14, statements: version14),
        Migration(version: 15, statements: version15),
        Migration(version: 16, statements: version16),
        Migration(version: 17, statements: version17),
        Migration(version: 18, statements: version18),
        Migration(version: 19, statements: version19),
        Migration(version: 20, statements: version20),
        Migration(version: 21, statements: version21),
        Migration(version: 22, statements: version22),
        Migration(version: 23, statements: version23),
        Migration(version: 24, statements: version24),
        Migration(version: 25, statements: version25),
    ]

    /// The newest version this build understands.
    static var latestVersion: Int { migrations.last?.version ?? 0 }

    /// The advisory lock key migrations hold ("portico" in ASCII, as a number).
    static let migrationLock: Int64 = 0x706F_7274_6963_6F

    /// The version of the database `connection` is on; 0 for an empty one.
    static func version(of connection: PostgresConnection) throws -> Int {
        var exists = false
        try connection.run("SELECT to_regclass('schema_migrations') IS NOT NULL", []) { exists = try $0.bool(at: 0) }
        guard exists else { return 0 }
        var version = 0
        try connection.run("SELECT coalesce(max(version), 0) FROM schema_migrations", []) {
            version = Int(try $0.integer(at: 0))
        }
        return version
    }

    /// Applies the missing migrations up to `target` in one transaction and returns their
    /// versions; refuses a database written by a newer Portico before touching it.
    static func migrate(_ connection: PostgresConnection, upTo target: Int = latestVersion, now: Date = Date())
        throws -> [Int]
    {
        try connection.execute("BEGIN")
        do {
            // Large tables may take longer than a request's statement timeout.
            try connection.execute("SET LOCAL statement_timeout = 0")
            try connection.run("SELECT pg_advisory_xact_lock($1)", [.integer(migrationLock)])
            let current = try version(of: connection)
            if current > latestVersion {
                throw StoreError.schemaTooNew(found: current, supported: latestVersion)
            }
            var applied: [Int] = []
            for migration in migrations where migration.version > current && migration.version <= target {
                for statement in migration.statements { try connection.execute(statement) }
                try connection.run(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)",
                    [.int(migration.version), .date(now)])
                applied.append(migration.version)
            }
            try connection.execute("COMMIT")
            return applied
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    private static let version1 = [
        """
        CREATE TABLE schema_migrations (
            version integer PRIMARY KEY,
            applied_at bigint NOT NULL
        )
        """,
        """
        CREATE TABLE users (
            id text PRIMARY KEY,
            email text NOT NULL,
            email_normalized text NOT NULL UNIQUE,
            name text NOT NULL,
            postal_code text,
            password_hash text NOT NULL,
            disabled boolean NOT NULL DEFAULT false,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL
        )
        """,
        """
        CREATE TABLE clients (
            id text PRIMARY KEY,
            name text NOT NULL,
            type text NOT NULL CHECK (type IN ('public', 'confidential')),
            secret_hash bytea,
            redirect_uris text NOT NULL,
            allowed_scopes text NOT NULL,
            allowed_grant_types text NOT NULL,
            logo_url text,
            privacy_url text,
            id_token_signing_alg text NOT NULL DEFAULT 'RS256',
            post_logout_redirect_uris text NOT NULL,
            created_at bigint NOT NULL
        )
        """,
        """
        CREATE TABLE product_scopes (
            name text PRIMARY KEY,
            description text NOT NULL,
            created_at bigint NOT NULL
        )
        """,
        """
        CREATE TABLE signing_keys (
            kid text PRIMARY KEY,
            algorithm text NOT NULL,
            private_key_pem text NOT NULL,
            state text NOT NULL CHECK (state IN ('active', 'retired')),
            is_current boolean NOT NULL DEFAULT false,
            created_at bigint NOT NULL,
            retired_at bigint
        )
        """,
        "CREATE UNIQUE INDEX signing_keys_current ON signing_keys (algorithm) WHERE is_current",
        """
        CREATE TABLE browser_sessions (
            id_hash bytea PRIMARY KEY,
            user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL,
            last_seen_at bigint NOT NULL,
            auth_time bigint NOT NULL,
            persistent boolean NOT NULL DEFAULT false,
            user_agent text,
            ip_address text
        )
        """,
        "CREATE INDEX browser_sessions_user ON browser_sessions (user_id)",
        "CREATE INDEX browser_sessions_expiry ON browser_sessions (expires_at)",
        """
        CREATE TABLE authorization_codes (
            code_hash bytea PRIMARY KEY,
            client_id text NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            redirect_uri text NOT NULL,
            scopes text NOT NULL,
            code_challenge text NOT NULL,
            nonce text,
            auth_time bigint NOT NULL,
            session_hash bytea,
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL,
            consumed_at bigint,
            issued_family_id text,
            issued_access_token_id text,
            issued_access_token_expires_at bigint
        )
        """,
        // As on SQLite: codes live a minute and are purged, so cascades may scan the table.
        "CREATE INDEX authorization_codes_expiry ON authorization_codes (expires_at)",
        """
        CREATE TABLE consents (
            user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            client_id text NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            scopes text NOT NULL,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL,
            PRIMARY KEY (user_id, client_id)
        )
        """,
        "CREATE INDEX consents_client ON consents (client_id)",
        """
        CREATE TABLE refresh_families (
            id text PRIMARY KEY,
            client_id text NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            scopes text NOT NULL,
            auth_time bigint NOT NULL,
            created_at bigint NOT NULL,
            revoked_at bigint
        )
        """,
        "CREATE INDEX refresh_families_user_client ON refresh_families (user_id, client_id)",
        "CREATE INDEX refresh_families_client ON refresh_families (client_id)",
        """
        CREATE TABLE refresh_tokens (
            token_hash bytea PRIMARY KEY,
            family_id text NOT NULL REFERENCES refresh_families (id) ON DELETE CASCADE,
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL,
            rotated_at bigint,
            successor_hash bytea
        )
        """,
        "CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id)",
        "CREATE INDEX refresh_tokens_expiry ON refresh_tokens (expires_at)",
        """
        CREATE TABLE access_token_revocations (
            jti text PRIMARY KEY,
            expires_at bigint NOT NULL
        )
        """,
        "CREATE INDEX access_token_revocations_expiry ON access_token_revocations (expires_at)",
        """
        CREATE TABLE device_authorizations (
            device_code_hash bytea PRIMARY KEY,
            user_code text NOT NULL UNIQUE,
            client_id text NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            scopes text NOT NULL,
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL,
            interval_seconds bigint NOT NULL,
            last_polled_at bigint,
            status text NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'consumed')),
            user_id text REFERENCES users (id) ON DELETE CASCADE,
            auth_time bigint
        )
        """,
        "CREATE INDEX device_authorizations_expiry ON device_authorizations (expires_at)",
        "CREATE INDEX device_authorizations_client ON device_authorizations (client_id)",
        "CREATE INDEX device_authorizations_user ON device_authorizations (user_id)",
        """
        CREATE TABLE account_links (
            host_client_id text NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            host_user_id text NOT NULL,
            platform_user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            created_at bigint NOT NULL,
            PRIMARY KEY (host_client_id, host_user_id),
            UNIQUE (host_client_id, platform_user_id)
        )
        """,
        "CREATE INDEX account_links_platform_user ON account_links (platform_user_id)",
        """
        CREATE TABLE audit_log (
            sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id text NOT NULL UNIQUE,
            occurred_at bigint NOT NULL,
            actor text NOT NULL,
            action text NOT NULL,
            subject text NOT NULL,
            details text NOT NULL
        )
        """,
        """
        CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'the audit log is append-only'; END
        $$
        """,
        """
        CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
        FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()
        """,
        """
        CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
        FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()
        """,
        // SQLite has no TRUNCATE; here it would bypass the row triggers.
        """
        CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
        FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()
        """,
    ]

    /// Accounts: password-reset links and throttled attempts (hashes only, as on SQLite).
    private static let version2 = [
        """
        CREATE TABLE password_resets (
            token_hash bytea PRIMARY KEY,
            user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL,
            used_at bigint
        )
        """,
        "CREATE INDEX password_resets_user ON password_resets (user_id)",
        "CREATE INDEX password_resets_expiry ON password_resets (expires_at)",
        """
        CREATE TABLE throttle_attempts (
            id text PRIMARY KEY,
            key_hash bytea NOT NULL,
            attempted_at bigint NOT NULL,
            expires_at bigint NOT NULL
        )
        """,
        "CREATE INDEX throttle_attempts_key ON throttle_attempts (key_hash, attempted_at)",
        "CREATE INDEX throttle_attempts_expiry ON throttle_attempts (expires_at)",
    ]

    /// Removing an app in Your Account: remembered per person and app until the tokens issued
    /// before it have expired.
    private static let version3 = [
        """
        CREATE TABLE grant_revocations (
            user_id text NOT NULL,
            client_id text NOT NULL,
            revoked_at bigint NOT NULL,
            expires_at bigint NOT NULL,
            PRIMARY KEY (user_id, client_id)
        )
        """,
        "CREATE INDEX grant_revocations_expiry ON grant_revocations (expires_at)",
    ]

    /// Refresh tokens live in their family's row, as on SQLite's version 4. A rotation then
    /// updates one row and no indexed column (the family is found by its primary key and no
    /// index covers the token columns), so PostgreSQL can write it as a HOT update; for the same
    /// reason there is no expiry index, and families are purged in slices by primary key from
    /// where the last run stopped (`purge_positions.last_key`, SQLite's `last_rowid`).
    private static let version4 = [
        "ALTER TABLE refresh_families ADD COLUMN token_hash bytea",
        "ALTER TABLE refresh_families ADD COLUMN token_issued_at bigint",
        "ALTER TABLE refresh_families ADD COLUMN token_expires_at bigint",
        "ALTER TABLE refresh_families ADD COLUMN previous_token_hash bytea",
        "ALTER TABLE refresh_families ADD COLUMN rotated_at bigint",
        """
        UPDATE refresh_families SET (token_hash, token_issued_at, token_expires_at) = (
            SELECT t.token_hash, t.created_at, t.expires_at FROM refresh_tokens t
            WHERE t.family_id = refresh_families.id AND t.rotated_at IS NULL
            ORDER BY t.created_at DESC, t.token_hash DESC LIMIT 1)
        """,
        """
        UPDATE refresh_families SET (previous_token_hash, rotated_at) = (
            SELECT t.token_hash, t.rotated_at FROM refresh_tokens t
            WHERE t.family_id = refresh_families.id AND t.successor_hash = refresh_families.token_hash
            ORDER BY t.rotated_at DESC LIMIT 1)
        WHERE token_hash IS NOT NULL
        """,
        """
        CREATE TABLE legacy_refresh_tokens (
            token_hash bytea PRIMARY KEY,
            family_id text NOT NULL REFERENCES refresh_families (id) ON DELETE CASCADE,
            expires_at bigint NOT NULL
        )
        """,
        "INSERT INTO legacy_refresh_tokens SELECT token_hash, family_id, expires_at FROM refresh_tokens",
        "CREATE INDEX legacy_refresh_tokens_family ON legacy_refresh_tokens (family_id)",
        "CREATE INDEX legacy_refresh_tokens_expiry ON legacy_refresh_tokens (expires_at)",
        "DROP TABLE refresh_tokens",
        """
        CREATE TABLE purge_positions (
            name text PRIMARY KEY,
            last_key text NOT NULL
        )
        """,
    ]

    /// Version 5, token exchange: as SQLite's version 5 (clients' SSO group, resources, subject
    /// type and sector; product scopes' and codes' resource; Native SSO device sessions and
    /// their refresh families; pairwise subjects; the provider's secrets).
    private static let version5 = [
        "ALTER TABLE clients ADD COLUMN sso_group text",
        "ALTER TABLE clients ADD COLUMN resources text NOT NULL DEFAULT '[]'",
        "ALTER TABLE clients ADD COLUMN subject_type text NOT NULL DEFAULT 'public'",
        "ALTER TABLE clients ADD COLUMN sector_identifier text",
        "ALTER TABLE product_scopes ADD COLUMN resource text",
        "ALTER TABLE authorization_codes ADD COLUMN resource text",
        """
        CREATE TABLE device_sessions (
            id text PRIMARY KEY,
            secret_hash bytea NOT NULL UNIQUE,
            user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            sso_group text NOT NULL,
            browser_session_hash bytea,
            scopes text NOT NULL,
            auth_time bigint NOT NULL,
            created_at bigint NOT NULL,
            revoked_at bigint
        )
        """,
        "CREATE INDEX device_sessions_user ON device_sessions (user_id)",
        """
        CREATE INDEX device_sessions_browser ON device_sessions (browser_session_hash)
        WHERE browser_session_hash IS NOT NULL
        """,
        """
        CREATE TABLE device_session_families (
            family_id text PRIMARY KEY REFERENCES refresh_families (id) ON DELETE CASCADE,
            device_session_id text NOT NULL REFERENCES device_sessions (id) ON DELETE CASCADE
        )
        """,
        "CREATE INDEX device_session_families_session ON device_session_families (device_session_id)",
        """
        CREATE TABLE pairwise_subjects (
            sector text NOT NULL,
            subject text NOT NULL,
            user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            PRIMARY KEY (sector, subject)
        )
        """,
        "CREATE INDEX pairwise_subjects_user ON pairwise_subjects (user_id)",
        """
        CREATE TABLE provider_secrets (
            name text PRIMARY KEY,
            value bytea NOT NULL
        )
        """,
    ]

    /// Version 6, back-channel logout: as SQLite's version 6 (clients' back-channel logout URI,
    /// the outbox, the browser session and `sid` of refresh families).
    private static let version6 = [
        "ALTER TABLE clients ADD COLUMN backchannel_logout_uri text",
        """
        CREATE TABLE outbox_messages (
            id text PRIMARY KEY,
            topic text NOT NULL,
            payload text NOT NULL,
            created_at bigint NOT NULL,
            next_attempt_at bigint NOT NULL,
            failed_attempts integer NOT NULL DEFAULT 0,
            last_error text,
            lease_owner text,
            lease_until bigint,
            delivered_at bigint,
            failed_at bigint
        )
        """,
        """
        CREATE INDEX outbox_messages_due ON outbox_messages (next_attempt_at)
        WHERE delivered_at IS NULL AND failed_at IS NULL
        """,
        """
        CREATE INDEX outbox_messages_finished ON outbox_messages ((coalesce(delivered_at, failed_at)))
        WHERE delivered_at IS NOT NULL OR failed_at IS NOT NULL
        """,
        """
        CREATE TABLE session_families (
            family_id text PRIMARY KEY REFERENCES refresh_families (id) ON DELETE CASCADE,
            browser_session_hash bytea NOT NULL,
            sid text NOT NULL
        )
        """,
        "CREATE INDEX session_families_browser ON session_families (browser_session_hash)",
    ]

    /// Version 7, account link: as SQLite's version 7 (links' own ids, mini-programs under their
    /// host, the host not a foreign key so that removing it disables them).
    private static let version7 = [
        "ALTER TABLE account_links ADD COLUMN id text",
        "UPDATE account_links SET id = md5(random()::text || clock_timestamp()::text || host_user_id) WHERE id IS NULL",
        "CREATE UNIQUE INDEX account_links_id ON account_links (id)",
        """
        CREATE TABLE mini_programs (
            client_id text PRIMARY KEY REFERENCES clients (id) ON DELETE CASCADE,
            host_client_id text NOT NULL,
            created_at bigint NOT NULL,
            disabled_at bigint
        )
        """,
        "CREATE INDEX mini_programs_host ON mini_programs (host_client_id)",
    ]

    /// Version 9, security: SQLite's version 9 (signing keys' `signs_from`, clients' JWKS and
    /// introspection flag, seen client-assertion `jti`s).
    private static let version9 = [
        "ALTER TABLE signing_keys ADD COLUMN signs_from bigint",
        "ALTER TABLE clients ADD COLUMN jwks text",
        "ALTER TABLE clients ADD COLUMN introspection boolean NOT NULL DEFAULT false",
        """
        CREATE TABLE client_assertions (
            client_id text NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            jti_hash bytea NOT NULL,
            expires_at bigint NOT NULL,
            PRIMARY KEY (client_id, jti_hash)
        )
        """,
        "CREATE INDEX client_assertions_expiry ON client_assertions (expires_at)",
    ]

    /// Version 10: as SQLite's version 10 (the resource a refresh family's code was bound to).
    private static let version10 = [
        """
        CREATE TABLE refresh_family_resources (
            family_id text PRIMARY KEY REFERENCES refresh_families (id) ON DELETE CASCADE,
            resource text NOT NULL
        )
        """
    ]

    /// Version 12: as SQLite's version 12 (two-step verification).
    private static let version12 = [
        """
        CREATE TABLE two_step_enrollments (
            user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
            secret text NOT NULL,
            created_at bigint NOT NULL,
            confirmed_at bigint,
            last_step bigint
        )
        """,
        """
        CREATE TABLE two_step_recovery_codes (
            user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            code_hash bytea NOT NULL,
            created_at bigint NOT NULL,
            used_at bigint,
            PRIMARY KEY (user_id, code_hash)
        )
        """,
        """
        CREATE TABLE two_step_sign_ins (
            id_hash bytea PRIMARY KEY,
            user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            persistent boolean NOT NULL,
            request text,
            return_path text,
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL
        )
        """,
        "CREATE INDEX two_step_sign_ins_expiry ON two_step_sign_ins (expires_at)",
        """
        CREATE TABLE session_methods (
            session_hash bytea PRIMARY KEY REFERENCES browser_sessions (id_hash) ON DELETE CASCADE,
            methods text NOT NULL
        )
        """,
        """
        CREATE TABLE refresh_family_methods (
            family_id text PRIMARY KEY REFERENCES refresh_families (id) ON DELETE CASCADE,
            methods text NOT NULL
        )
        """,
    ]
}
