import Foundation
import PorticoStore
import PorticoStoreSQL

/// ``StoreTransaction`` on one SQLite connection inside `BEGIN IMMEDIATE` (writes) or `BEGIN`
/// (reads). Lives only for the duration of the body passed to the store; afterwards every call
/// throws, so a transaction that escaped its closure cannot write outside a transaction.
final class SQLiteTransaction: StoreTransaction, SQLTransaction {
    /// SQLite's spelling of what differs (booleans are integers).
    let dialect = SQLDialect.sqlite
    private let connection: SQLiteConnection
    private let isReadOnly: Bool
    private var isFinished = false

    init(connection: SQLiteConnection, isReadOnly: Bool) {
        self.connection = connection
        self.isReadOnly = isReadOnly
    }

    /// Called by the store when the body has returned or thrown.
    func finish() {
        isFinished = true
    }

    // MARK: Helpers

    /// Runs a statement, handing each row to `row`.
    func run(_ sql: String, _ bindings: [SQLiteValue], row: (SQLiteRow) throws -> Void = { _ in }) throws {
        guard !isFinished else { throw StoreError.misuse("a transaction was used after its body returned") }
        try connection.run(sql, bindings, readOnly: isReadOnly, row: row)
    }

    /// Runs a writing statement and returns how many rows it changed.
    @discardableResult func write(_ sql: String, _ bindings: [SQLiteValue]) throws -> Int {
        try run(sql, bindings)
        return connection.changes
    }

    /// The first row's decoded value, if any.
    func first<T>(_ sql: String, _ bindings: [SQLiteValue], _ decode: (SQLiteRow) throws -> T) throws -> T? {
        var result: T?
        try run(sql, bindings) { row in
            if result == nil { result = try decode(row) }
        }
        return result
    }

    /// Every row, decoded.
    func all<T>(_ sql: String, _ bindings: [SQLiteValue], _ decode: (SQLiteRow) throws -> T) throws -> [T] {
        var result: [T] = []
        try run(sql, bindings) { result.append(try decode($0)) }
        return result
    }

    // MARK: Users

    static let userColumns =
        "id, email, name, postal_code, password_hash, disabled, created_at, updated_at, email_verified"

    static func decodeUser(_ row: SQLiteRow) -> UserRecord {
        UserRecord(
            id: row.text(0), email: row.text(1), name: row.text(2), postalCode: row.optionalText(3),
            passwordHash: row.text(4), isDisabled: row.bool(5), isEmailVerified: row.bool(8), createdAt: row.date(6),
            updatedAt: row.date(7))
    }

    func insert(_ user: UserRecord) throws {
        try write(
            """
            INSERT INTO users (id, email, email_normalized, name, postal_code, password_hash, disabled, created_at,
                updated_at, email_verified)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(user.id), .text(user.email), .text(UserRecord.normalizedEmail(user.email)), .text(user.name),
                .text(user.postalCode), .text(user.passwordHash), .bool(user.isDisabled), .date(user.createdAt),
                .date(user.updatedAt), .bool(user.isEmailVerified),
            ])
    }

    func user(id: String) throws -> UserRecord? {
        try first("SELECT \(Self.userColumns) FROM users WHERE id = ?", [.text(id)], Self.decodeUser)
    }

    func user(email: String) throws -> UserRecord? {
        try first(
            "SELECT \(Self.userColumns) FROM users WHERE email_normalized = ?",
            [.text(UserRecord.normalizedEmail(email))],
            Self.decodeUser)
    }

    func users(limit: Int) throws -> [UserRecord] {
        try all(
            "SELECT \(Self.userColumns) FROM users ORDER BY created_at, id LIMIT ?", [.int(max(0, limit))],
            Self.decodeUser)
    }

    func update(_ user: UserRecord) throws {
        let changed = try write(
            """
            UPDATE users SET email = ?, email_normalized = ?, name = ?, postal_code = ?, password_hash = ?,
                disabled = ?, updated_at = ?, email_verified = ?
            WHERE id = ?
            """,
            [
                .text(user.email), .text(UserRecord.normalizedEmail(user.email)), .text(user.name),
                .text(user.postalCode),
                .text(user.passwordHash), .bool(user.isDisabled), .date(user.updatedAt), .bool(user.isEmailVerified),
                .text(user.id),
            ])
        if changed == 0 { throw StoreError.notFound(entity: "user", id: user.id) }
    }

    func deleteUser(id: String) throws -> Bool {
        try write("DELETE FROM users WHERE id = ?", [.text(id)]) > 0
    }

    // MARK: Clients

    private static let clientColumns = """
        id, name, type, secret_hash, redirect_uris, allowed_scopes, allowed_grant_types, logo_url, privacy_url,
        id_token_signing_alg, post_logout_redirect_uris, created_at, sso_group, resources, subject_type,
        sector_identifier, backchannel_logout_uri, jwks, introspection
        """

    private static func decodeClient(_ row: SQLiteRow) throws -> Client {
        let typeName = row.text(2)
        guard let type = ClientType(rawValue: typeName) else {
            throw StoreError.corrupt("unknown client type '\(typeName)'")
        }
        var client = Client(
            id: row.text(0), name: row.text(1), type: type, secretHash: row.isNull(3) ? nil : row.blob(3),
            redirectURIs: try row.list(4), allowedScopes: try row.list(5), allowedGrantTypes: try row.list(6),
            logoURL: row.optionalText(7), privacyURL: row.optionalText(8), idTokenSigningAlgorithm: row.text(9),
            postLogoutRedirectURIs: try row.list(10), createdAt: row.date(11))
        client.ssoGroup = row.optionalText(12)
        client.resources = try row.list(13)
        let subjectType = row.text(14)
        guard let subject = SubjectType(rawValue: subjectType) else {
            throw StoreError.corrupt("unknown subject type '\(subjectType)'")
        }
        client.subjectType = subject
        client.sectorIdentifier = row.optionalText(15)
        client.backchannelLogoutURI = row.optionalText(16)
        client.jwks = row.optionalText(17)
        client.mayIntrospect = row.bool(18)
        return client
    }

    private static func clientValues(_ client: Client) throws -> [SQLiteValue] {
        try client.checkStorable()
        return [
            .text(client.name), .text(client.type.rawValue), client.secretHash.map { .bytes($0) } ?? .null,
            .list(client.redirectURIs), .list(client.allowedScopes), .list(client.allowedGrantTypes),
            .text(client.logoURL), .text(client.privacyURL), .text(client.idTokenSigningAlgorithm),
            .list(client.postLogoutRedirectURIs), .text(client.ssoGroup), .list(client.resources),
            .text(client.subjectType.rawValue), .text(client.sectorIdentifier), .text(client.backchannelLogoutURI),
            .text(client.jwks), .bool(client.mayIntrospect),
        ]
    }

    func insert(_ client: Client) throws {
        try write(
            """
            INSERT INTO clients (name, type, secret_hash, redirect_uris, allowed_scopes, allowed_grant_types, logo_url,
                privacy_url, id_token_signing_alg, post_logout_redirect_uris, sso_group, resources, subject_type,
                sector_identifier, backchannel_logout_uri, jwks, introspection, id, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            try Self.clientValues(client) + [.text(client.id), .date(client.createdAt)])
    }

    func client(id: String) throws -> Client? {
        try first("SELECT \(Self.clientColumns) FROM clients WHERE id = ?", [.text(id)], Self.decodeClient)
    }

    func clients() throws -> [Client] {
        try all("SELECT \(Self.clientColumns) FROM clients ORDER BY created_at, id", [], Self.decodeClient)
    }

    func update(_ client: Client) throws {
        let changed = try write(
            """
            UPDATE clients SET name = ?, type = ?, secret_hash = ?, redirect_uris = ?, allowed_scopes = ?,
                allowed_grant_types = ?, logo_url = ?, privacy_url = ?, id_token_signing_alg = ?,
                post_logout_redirect_uris = ?, sso_group = ?, resources = ?, subject_type = ?, sector_identifier = ?,
                backchannel_logout_uri = ?, jwks = ?, introspection = ?
            WHERE id = ?
            """,
            try Self.clientValues(client) + [.text(client.id)])
        if changed == 0 { throw StoreError.notFound(entity: "client", id: client.id) }
    }

    func deleteClient(id: String) throws -> Bool {
        try write("DELETE FROM clients WHERE id = ?", [.text(id)]) > 0
    }

    // MARK: Product scopes

    private static func decodeScope(_ row: SQLiteRow) -> ProductScope {
        ProductScope(
            name: row.text(0), description: row.text(1), createdAt: row.date(2), resource: row.optionalText(3))
    }

    func insert(_ scope: ProductScope) throws {
        try write(
            "INSERT INTO product_scopes (name, description, created_at, resource) VALUES (?, ?, ?, ?)",
            [.text(scope.name), .text(scope.description), .date(scope.createdAt), .text(scope.resource)])
    }

    func productScope(name: String) throws -> ProductScope? {
        try first(
            "SELECT name, description, created_at, resource FROM product_scopes WHERE name = ?", [.text(name)],
            Self.decodeScope)
    }

    func productScopes() throws -> [ProductScope] {
        try all(
            "SELECT name, description, created_at, resource FROM product_scopes ORDER BY name", [], Self.decodeScope)
    }

    func update(_ scope: ProductScope) throws {
        let changed = try write(
            "UPDATE product_scopes SET description = ?, resource = ? WHERE name = ?",
            [.text(scope.description), .text(scope.resource), .text(scope.name)])
        if changed == 0 { throw StoreError.notFound(entity: "scope", id: scope.name) }
    }

    func deleteProductScope(name: String) throws -> Bool {
        try write("DELETE FROM product_scopes WHERE name = ?", [.text(name)]) > 0
    }

    // MARK: Signing keys

    private static let keyColumns =
        "kid, algorithm, private_key_pem, state, is_current, created_at, retired_at, signs_from"

    private static func decodeKey(_ row: SQLiteRow) throws -> StoredSigningKey {
        let stateName = row.text(3)
        guard let state = SigningKeyState(rawValue: stateName) else {
            throw StoreError.corrupt("unknown signing key state '\(stateName)'")
        }
        return StoredSigningKey(
            id: row.text(0), algorithm: row.text(1), privateKeyPEM: row.text(2), state: state,
            isCurrent: row.bool(4), createdAt: row.date(5), retiredAt: row.optionalDate(6),
            signsFrom: row.optionalDate(7))
    }

    func insert(_ key: StoredSigningKey) throws {
        if key.isCurrent {
            try key.checkMayBeCurrent()
            try write(
                "UPDATE signing_keys SET is_current = 0 WHERE algorithm = ? AND is_current = 1",
                [.text(key.algorithm)])
        }
        try write(
            "INSERT INTO signing_keys (\(Self.keyColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(key.id), .text(key.algorithm), .text(key.privateKeyPEM), .text(key.state.rawValue),
                .bool(key.isCurrent), .date(key.createdAt), .date(key.retiredAt), .date(key.signsFrom),
            ])
    }

    func signingKey(id: String) throws -> StoredSigningKey? {
        try first("SELECT \(Self.keyColumns) FROM signing_keys WHERE kid = ?", [.text(id)], Self.decodeKey)
    }

    func signingKeys() throws -> [StoredSigningKey] {
        try all("SELECT \(Self.keyColumns) FROM signing_keys ORDER BY created_at, kid", [], Self.decodeKey)
    }

    func currentSigningKey(algorithm: String) throws -> StoredSigningKey? {
        try first(
            "SELECT \(Self.keyColumns) FROM signing_keys WHERE algorithm = ? AND is_current = 1",
            [.text(algorithm)], Self.decodeKey)
    }

    func makeCurrentSigningKey(id: String) throws {
        guard let key = try signingKey(id: id) else { throw StoreError.notFound(entity: "signing key", id: id) }
        try key.checkMayBeCurrent()
        try write(
            "UPDATE signing_keys SET is_current = 0 WHERE algorithm = ? AND is_current = 1", [.text(key.algorithm)])
        try write("UPDATE signing_keys SET is_current = 1 WHERE kid = ?", [.text(id)])
    }

    func retireSigningKey(id: String, at time: Date) throws {
        let changed = try write(
            "UPDATE signing_keys SET state = 'retired', is_current = 0, retired_at = ? WHERE kid = ?",
            [.date(time), .text(id)])
        if changed == 0 { throw StoreError.notFound(entity: "signing key", id: id) }
    }

    func deleteSigningKey(id: String) throws -> Bool {
        try write("DELETE FROM signing_keys WHERE kid = ?", [.text(id)]) > 0
    }
}
