import Foundation
import PorticoStore
import PorticoStoreSQL

/// The SQLite schema as forward-only migrations.
///
/// The version lives in `PRAGMA user_version` (read without touching any table, so a newer
/// database is recognised before anything else happens) and each applied migration is also
/// recorded in `schema_migrations` with its time, for people reading the database. A migration
/// is never edited once released: changes come as a new version.
enum SQLiteSchema {
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
        // PostgreSQL's change notifications for node-local caches; SQLite offers no feed (its
        // admin commands are another process), so there is nothing to create but the number.
        Migration(version: 13, statements: ["PRAGMA user_version = 13"]),
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

    static func version(of connection: SQLiteConnection) throws -> Int {
        var version = 0
        try connection.run("PRAGMA user_version", []) { version = Int($0.integer(at: 0)) }
        return version
    }

    /// Refuses a database written by a newer Portico.
    static func checkNotTooNew(_ connection: SQLiteConnection) throws {
        let found = try version(of: connection)
        if found > latestVersion { throw StoreError.schemaTooNew(found: found, supported: latestVersion) }
    }

    /// Applies the missing migrations in one `BEGIN IMMEDIATE` transaction, so that two
    /// processes opening a new database at once cannot both apply them; returns their versions.
    /// `target` stops at an older version (tests build databases as earlier releases left them).
    static func migrate(_ connection: SQLiteConnection, upTo target: Int = latestVersion, now: Date = Date()) throws
        -> [Int]
    {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            let current = try version(of: connection)
            if current > latestVersion { throw StoreError.schemaTooNew(found: current, supported: latestVersion) }
            var applied: [Int] = []
            for migration in migrations where migration.version > current && migration.version <= target {
                for statement in migration.statements { try connection.execute(statement) }
                try connection.run(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
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
            version INTEGER PRIMARY KEY,
            applied_at INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE users (
            id TEXT PRIMARY KEY,
            email TEXT NOT NULL,
            email_normalized TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            postal_code TEXT,
            password_hash TEXT NOT NULL,
            disabled INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE clients (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            type TEXT NOT NULL CHECK (type IN ('public', 'confidential')),
            secret_hash BLOB,
            redirect_uris TEXT NOT NULL,
            allowed_scopes TEXT NOT NULL,
            allowed_grant_types TEXT NOT NULL,
            logo_url TEXT,
            privacy_url TEXT,
            id_token_signing_alg TEXT NOT NULL DEFAULT 'RS256',
            post_logout_redirect_uris TEXT NOT NULL,
            created_at INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE product_scopes (
            name TEXT PRIMARY KEY,
            description TEXT NOT NULL,
            created_at INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE signing_keys (
            kid TEXT PRIMARY KEY,
            algorithm TEXT NOT NULL,
            private_key_pem TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('active', 'retired')),
            is_current INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            retired_at INTEGER
        )
        """,
        "CREATE UNIQUE INDEX signing_keys_current ON signing_keys (algorithm) WHERE is_current = 1",
        """
        CREATE TABLE browser_sessions (
            id_hash BLOB PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            last_seen_at INTEGER NOT NULL,
            auth_time INTEGER NOT NULL,
            persistent INTEGER NOT NULL DEFAULT 0,
            user_agent TEXT,
            ip_address TEXT
        )
        """,
        "CREATE INDEX browser_sessions_user ON browser_sessions (user_id)",
        "CREATE INDEX browser_sessions_expiry ON browser_sessions (expires_at)",
        """
        CREATE TABLE authorization_codes (
            code_hash BLOB PRIMARY KEY,
            client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            redirect_uri TEXT NOT NULL,
            scopes TEXT NOT NULL,
            code_challenge TEXT NOT NULL,
            nonce TEXT,
            auth_time INTEGER NOT NULL,
            session_hash BLOB,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            consumed_at INTEGER,
            issued_family_id TEXT,
            issued_access_token_id TEXT,
            issued_access_token_expires_at INTEGER
        )
        """,
        // Codes live a minute and are purged, so cascades from users and clients may scan the
        // table; indexes on user_id and client_id would only add pages to every code's commit.
        "CREATE INDEX authorization_codes_expiry ON authorization_codes (expires_at)",
        """
        CREATE TABLE consents (
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            scopes TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (user_id, client_id)
        )
        """,
        "CREATE INDEX consents_client ON consents (client_id)",
        """
        CREATE TABLE refresh_families (
            id TEXT PRIMARY KEY,
            client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            scopes TEXT NOT NULL,
            auth_time INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            revoked_at INTEGER
        )
        """,
        "CREATE INDEX refresh_families_user_client ON refresh_families (user_id, client_id)",
        "CREATE INDEX refresh_families_client ON refresh_families (client_id)",
        """
        CREATE TABLE refresh_tokens (
            token_hash BLOB PRIMARY KEY,
            family_id TEXT NOT NULL REFERENCES refresh_families (id) ON DELETE CASCADE,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            rotated_at INTEGER,
            successor_hash BLOB
        )
        """,
        "CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id)",
        "CREATE INDEX refresh_tokens_expiry ON refresh_tokens (expires_at)",
        """
        CREATE TABLE access_token_revocations (
            jti TEXT PRIMARY KEY,
            expires_at INTEGER NOT NULL
        )
        """,
        "CREATE INDEX access_token_revocations_expiry ON access_token_revocations (expires_at)",
        """
        CREATE TABLE device_authorizations (
            device_code_hash BLOB PRIMARY KEY,
            user_code TEXT NOT NULL UNIQUE,
            client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            scopes TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            interval_seconds INTEGER NOT NULL,
            last_polled_at INTEGER,
            status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'consumed')),
            user_id TEXT REFERENCES users (id) ON DELETE CASCADE,
            auth_time INTEGER
        )
        """,
        "CREATE INDEX device_authorizations_expiry ON device_authorizations (expires_at)",
        "CREATE INDEX device_authorizations_client ON device_authorizations (client_id)",
        "CREATE INDEX device_authorizations_user ON device_authorizations (user_id)",
        """
        CREATE TABLE account_links (
            host_client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            host_user_id TEXT NOT NULL,
            platform_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (host_client_id, host_user_id),
            UNIQUE (host_client_id, platform_user_id)
        )
        """,
        "CREATE INDEX account_links_platform_user ON account_links (platform_user_id)",
        """
        CREATE TABLE audit_log (
            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            occurred_at INTEGER NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            subject TEXT NOT NULL,
            details TEXT NOT NULL
        )
        """,
        """
        CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END
        """,
        """
        CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END
        """,
        "PRAGMA user_version = 1",
    ]

    /// Accounts (issue 5): password-reset links and throttled attempts. Both keep only SHA-256
    /// hashes of what they are looked up by (the mailed token; the e-mail or address key).
    private static let version2 = [
        """
        CREATE TABLE password_resets (
            token_hash BLOB PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            used_at INTEGER
        )
        """,
        "CREATE INDEX password_resets_user ON password_resets (user_id)",
        "CREATE INDEX password_resets_expiry ON password_resets (expires_at)",
        """
        CREATE TABLE throttle_attempts (
            id TEXT PRIMARY KEY,
            key_hash BLOB NOT NULL,
            attempted_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL
        )
        """,
        "CREATE INDEX throttle_attempts_key ON throttle_attempts (key_hash, attempted_at)",
        "CREATE INDEX throttle_attempts_expiry ON throttle_attempts (expires_at)",
        "PRAGMA user_version = 2",
    ]

    /// Removing an app in Your Account (issue 5): access tokens are JWTs the provider does not
    /// list, so a removal is remembered per person and app until every token issued before it
    /// has expired; resource endpoints refuse tokens issued at or before it.
    private static let version3 = [
        """
        CREATE TABLE grant_revocations (
            user_id TEXT NOT NULL,
            client_id TEXT NOT NULL,
            revoked_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            PRIMARY KEY (user_id, client_id)
        )
        """,
        "CREATE INDEX grant_revocations_expiry ON grant_revocations (expires_at)",
        "PRAGMA user_version = 3",
    ]

    /// Refresh tokens live in their family's row (issue 4's throughput): the current token's
    /// hash and expiry and the hash of the token the last rotation replaced, so a rotation
    /// rewrites one row where it used to insert a token and update another (five b-tree pages
    /// written per rotation, now one). Tokens from then on name their family
    /// (``RefreshToken/mint(familyID:)``); the hashes of earlier tokens move to
    /// `legacy_refresh_tokens`, which only maps such a token to its family, so that they keep
    /// refreshing (nobody is signed out by the upgrade) and reuse of one is still detected.
    private static let version4 = [
        "ALTER TABLE refresh_families ADD COLUMN token_hash BLOB",
        "ALTER TABLE refresh_families ADD COLUMN token_issued_at INTEGER",
        "ALTER TABLE refresh_families ADD COLUMN token_expires_at INTEGER",
        "ALTER TABLE refresh_families ADD COLUMN previous_token_hash BLOB",
        "ALTER TABLE refresh_families ADD COLUMN rotated_at INTEGER",
        """
        UPDATE refresh_families SET (token_hash, token_issued_at, token_expires_at) = (
            SELECT t.token_hash, t.created_at, t.expires_at FROM refresh_tokens t
            WHERE t.family_id = refresh_families.id AND t.rotated_at IS NULL
            ORDER BY t.created_at DESC, t.rowid DESC LIMIT 1)
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
            token_hash BLOB PRIMARY KEY,
            family_id TEXT NOT NULL REFERENCES refresh_families (id) ON DELETE CASCADE,
            expires_at INTEGER NOT NULL
        ) WITHOUT ROWID
        """,
        "INSERT INTO legacy_refresh_tokens SELECT token_hash, family_id, expires_at FROM refresh_tokens",
        "CREATE INDEX legacy_refresh_tokens_family ON legacy_refresh_tokens (family_id)",
        "CREATE INDEX legacy_refresh_tokens_expiry ON legacy_refresh_tokens (expires_at)",
        "DROP TABLE refresh_tokens",
        // Where the purger's scan of a table without an expiry index stopped (see
        // `purgeExpired`): families are purged a slice per run.
        """
        CREATE TABLE purge_positions (
            name TEXT PRIMARY KEY,
            last_rowid INTEGER NOT NULL
        ) WITHOUT ROWID
        """,
        "PRAGMA user_version = 4",
    ]

    /// Version 5, token exchange (RFC 8693): what a client may ask for (its Native SSO group,
    /// resource servers, subject type), product scopes' resource servers, the resource an
    /// authorization code was bound to (RFC 8707), Native SSO device sessions and the refresh
    /// families issued in them, pairwise subjects (OIDC Core §8.1) and the provider's own secrets
    /// (the pairwise salt). New columns have defaults, so every existing row keeps its meaning.
    private static let version5 = [
        "ALTER TABLE clients ADD COLUMN sso_group TEXT",
        "ALTER TABLE clients ADD COLUMN resources TEXT NOT NULL DEFAULT '[]'",
        "ALTER TABLE clients ADD COLUMN subject_type TEXT NOT NULL DEFAULT 'public'",
        "ALTER TABLE clients ADD COLUMN sector_identifier TEXT",
        "ALTER TABLE product_scopes ADD COLUMN resource TEXT",
        "ALTER TABLE authorization_codes ADD COLUMN resource TEXT",
        """
        CREATE TABLE device_sessions (
            id TEXT PRIMARY KEY,
            secret_hash BLOB NOT NULL UNIQUE,
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            sso_group TEXT NOT NULL,
            browser_session_hash BLOB,
            scopes TEXT NOT NULL,
            auth_time INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            revoked_at INTEGER
        )
        """,
        "CREATE INDEX device_sessions_user ON device_sessions (user_id)",
        """
        CREATE INDEX device_sessions_browser ON device_sessions (browser_session_hash)
        WHERE browser_session_hash IS NOT NULL
        """,
        """
        CREATE TABLE device_session_families (
            family_id TEXT PRIMARY KEY REFERENCES refresh_families (id) ON DELETE CASCADE,
            device_session_id TEXT NOT NULL REFERENCES device_sessions (id) ON DELETE CASCADE
        ) WITHOUT ROWID
        """,
        "CREATE INDEX device_session_families_session ON device_session_families (device_session_id)",
        """
        CREATE TABLE pairwise_subjects (
            sector TEXT NOT NULL,
            subject TEXT NOT NULL,
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            PRIMARY KEY (sector, subject)
        ) WITHOUT ROWID
        """,
        "CREATE INDEX pairwise_subjects_user ON pairwise_subjects (user_id)",
        """
        CREATE TABLE provider_secrets (
            name TEXT PRIMARY KEY,
            value BLOB NOT NULL
        ) WITHOUT ROWID
        """,
        "PRAGMA user_version = 5",
    ]

    /// Version 6, OpenID Connect Back-Channel Logout 1.0: a client's back-channel logout URI,
    /// the durable outbox its logout tokens are delivered from (claimed with a lease, so one node
    /// delivers each), and which refresh families each browser session issued with their `sid`.
    private static let version6 = [
        "ALTER TABLE clients ADD COLUMN backchannel_logout_uri TEXT",
        """
        CREATE TABLE outbox_messages (
            id TEXT PRIMARY KEY,
            topic TEXT NOT NULL,
            payload TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            next_attempt_at INTEGER NOT NULL,
            failed_attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            lease_owner TEXT,
            lease_until INTEGER,
            delivered_at INTEGER,
            failed_at INTEGER
        )
        """,
        """
        CREATE INDEX outbox_messages_due ON outbox_messages (next_attempt_at)
        WHERE delivered_at IS NULL AND failed_at IS NULL
        """,
        """
        CREATE INDEX outbox_messages_finished ON outbox_messages (coalesce(delivered_at, failed_at))
        WHERE delivered_at IS NOT NULL OR failed_at IS NOT NULL
        """,
        """
        CREATE TABLE session_families (
            family_id TEXT PRIMARY KEY REFERENCES refresh_families (id) ON DELETE CASCADE,
            browser_session_hash BLOB NOT NULL,
            sid TEXT NOT NULL
        ) WITHOUT ROWID
        """,
        "CREATE INDEX session_families_browser ON session_families (browser_session_hash)",
        "PRAGMA user_version = 6",
    ]

    /// Version 7, account link (issue 14): a link gets an id of its own (`link_id`, by which the
    /// host unbinds it; links made before get a random one), and mini-programs are registered
    /// under their host app. `mini_programs.host_client_id` is deliberately not a foreign key:
    /// removing the host disables its mini-programs instead of deleting the relation, so they
    /// cannot come back as ordinary clients.
    private static let version7 = [
        "ALTER TABLE account_links ADD COLUMN id TEXT",
        "UPDATE account_links SET id = lower(hex(randomblob(16))) WHERE id IS NULL",
        "CREATE UNIQUE INDEX account_links_id ON account_links (id)",
        """
        CREATE TABLE mini_programs (
            client_id TEXT PRIMARY KEY REFERENCES clients (id) ON DELETE CASCADE,
            host_client_id TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            disabled_at INTEGER
        ) WITHOUT ROWID
        """,
        "CREATE INDEX mini_programs_host ON mini_programs (host_client_id)",
        "PRAGMA user_version = 7",
    ]

    /// Version 9, security: when a rotated signing key may start signing (published first), the
    /// public keys of clients that authenticate with `private_key_jwt` (RFC 7523), which clients
    /// are resource servers allowed to introspect, and the `jti`s of client assertions seen, so
    /// each is used once until it expires. New columns have defaults: existing keys sign as they
    /// did, existing clients authenticate as they did.
    private static let version9 = [
        "ALTER TABLE signing_keys ADD COLUMN signs_from INTEGER",
        "ALTER TABLE clients ADD COLUMN jwks TEXT",
        "ALTER TABLE clients ADD COLUMN introspection INTEGER NOT NULL DEFAULT 0",
        """
        CREATE TABLE client_assertions (
            client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            jti_hash BLOB NOT NULL,
            expires_at INTEGER NOT NULL,
            PRIMARY KEY (client_id, jti_hash)
        )
        """,
        "CREATE INDEX client_assertions_expiry ON client_assertions (expires_at)",
        "PRAGMA user_version = 9",
    ]

    /// Version 10, robustness and token-exchange leftovers: the resource (RFC 8707) a refresh
    /// family's code was bound to, so that refreshed access tokens keep their `aud`. A table of
    /// its own, so that families without one (nearly all) cost nothing.
    private static let version10 = [
        """
        CREATE TABLE refresh_family_resources (
            family_id TEXT PRIMARY KEY REFERENCES refresh_families (id) ON DELETE CASCADE,
            resource TEXT NOT NULL
        ) WITHOUT ROWID
        """,
        "PRAGMA user_version = 10",
    ]

    /// Version 12, two-step verification (issue 17): authenticator-app enrollments (the TOTP
    /// secret sealed, the last time step used), recovery codes as keyed hashes, sign-ins waiting
    /// for their second step, and the `amr` values of sessions and refresh families begun with
    /// two steps (tables of their own, removed with what they describe; absent means password only).
    private static let version12 = [
        """
        CREATE TABLE two_step_enrollments (
            user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
            secret TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            confirmed_at INTEGER,
            last_step INTEGER
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE two_step_recovery_codes (
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            code_hash BLOB NOT NULL,
            created_at INTEGER NOT NULL,
            used_at INTEGER,
            PRIMARY KEY (user_id, code_hash)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE two_step_sign_ins (
            id_hash BLOB PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            persistent INTEGER NOT NULL,
            request TEXT,
            return_path TEXT,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL
        )
        """,
        "CREATE INDEX two_step_sign_ins_expiry ON two_step_sign_ins (expires_at)",
        """
        CREATE TABLE session_methods (
            session_hash BLOB PRIMARY KEY REFERENCES browser_sessions (id_hash) ON DELETE CASCADE,
            methods TEXT NOT NULL
        )
        """,
        """
        CREATE TABLE refresh_family_methods (
            family_id TEXT PRIMARY KEY REFERENCES refresh_families (id) ON DELETE CASCADE,
            methods TEXT NOT NULL
        ) WITHOUT ROWID
        """,
        "PRAGMA user_version = 12",
    ]
}
