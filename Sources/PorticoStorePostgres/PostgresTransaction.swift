import Foundation
import PorticoStore
import PorticoStoreSQL

/// ``StoreTransaction`` on one pooled connection inside `BEGIN` (READ COMMITTED) for writes or
/// `BEGIN … REPEATABLE READ READ ONLY` for reads. Lives only for the duration of the body passed
/// to the store; afterwards every call throws.
///
/// Under READ COMMITTED each statement sees what was committed before it began, and concurrent
/// writers of one row wait for each other, the later one re-checking its WHERE clause against
/// the row as the first left it. That is why every conditional primitive is one statement whose
/// condition is in its WHERE (`UPDATE … WHERE token_hash = $n`): of two racing transactions,
/// exactly one changes the row, and the other's count of changed rows is 0.
final class PostgresTransaction: StoreTransaction, SQLTransaction {
    /// PostgreSQL's spelling of what differs (booleans are `boolean`).
    let dialect = SQLDialect.postgres
    private let connection: PostgresConnection
    let isReadOnly: Bool
    private var isFinished = false
    /// The most statements the body may run (``PostgresStore/readOne(_:)`` and
    /// ``PostgresStore/writeOne(_:)``: one, outside any transaction); nil for no limit.
    private let statementLimit: Int?
    private var statementsRun = 0

    init(connection: PostgresConnection, isReadOnly: Bool, statementLimit: Int? = nil) {
        self.connection = connection
        self.isReadOnly = isReadOnly
        self.statementLimit = statementLimit
    }

    /// Called by the store when the body has returned or thrown.
    func finish() {
        isFinished = true
    }

    // MARK: Helpers

    /// Runs a statement (written with `?` placeholders, numbered here), handing each row to
    /// `row`; returns the rows changed or returned.
    @discardableResult
    func run(_ sql: String, _ parameters: [PostgresValue], row: (PostgresRow) throws -> Void = { _ in }) throws
        -> Int
    {
        guard !isFinished else { throw StoreError.misuse("a transaction was used after its body returned") }
        if let statementLimit {
            guard statementsRun < statementLimit else {
                throw StoreError.misuse(
                    "readOne or writeOne ran a second statement, which needs a transaction around both")
            }
            statementsRun += 1
        }
        do {
            return try connection.run(Self.numbered(sql), parameters, row: row)
        } catch let error as PostgresError {
            throw error.storeError
        }
    }

    /// Runs a writing statement and returns how many rows it changed.
    @discardableResult func write(_ sql: String, _ parameters: [PostgresValue]) throws -> Int {
        if isReadOnly { throw StoreError.misuse("a write operation inside a read-only transaction") }
        return try run(sql, parameters)
    }

    /// The first row's decoded value, if any.
    func first<T>(_ sql: String, _ parameters: [PostgresValue], _ decode: (PostgresRow) throws -> T) throws -> T? {
        var result: T?
        try run(sql, parameters) { row in
            if result == nil { result = try decode(row) }
        }
        return result
    }

    /// Every row, decoded.
    func all<T>(_ sql: String, _ parameters: [PostgresValue], _ decode: (PostgresRow) throws -> T) throws -> [T] {
        var result: [T] = []
        try run(sql, parameters) { result.append(try decode($0)) }
        return result
    }

    /// `sql` with its `?` placeholders numbered `$1`, `$2`, … (the store's SQL has no `?`
    /// elsewhere), so that statements read like SQLite's backend's. Runs for every statement, so
    /// it walks UTF-8 bytes, not characters (`?` is ASCII and never part of a longer UTF-8
    /// sequence): walking `Character`s cost an eighth of a refresh grant's CPU.
    static func numbered(_ sql: String) -> String {
        let question = UInt8(ascii: "?")
        guard sql.utf8.contains(question) else { return sql }
        var output: [UInt8] = []
        output.reserveCapacity(sql.utf8.count + 32)
        var next = 1
        for byte in sql.utf8 {
            if byte == question {
                output.append(UInt8(ascii: "$"))
                output.append(contentsOf: String(next).utf8)
                next += 1
            } else {
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: Users

    static let userColumns =
        "id, email, name, postal_code, password_hash, disabled, created_at, updated_at, email_verified"

    static func decodeUser(_ row: PostgresRow) throws -> UserRecord {
        UserRecord(
            id: row.text(0), email: row.text(1), name: row.text(2), postalCode: row.optionalText(3),
            passwordHash: row.text(4), isDisabled: try row.bool(5), isEmailVerified: try row.bool(8),
            createdAt: try row.date(6), updatedAt: try row.date(7))
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
            [.text(UserRecord.normalizedEmail(email))], Self.decodeUser)
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
                .text(user.postalCode), .text(user.passwordHash), .bool(user.isDisabled), .date(user.updatedAt),
                .bool(user.isEmailVerified), .text(user.id),
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

    private static func decodeClient(_ row: PostgresRow) throws -> Client {
        let typeName = row.text(2)
        guard let type = ClientType(rawValue: typeName) else {
            throw StoreError.corrupt("unknown client type '\(typeName)'")
        }
        var client = Client(
            id: row.text(0), name: row.text(1), type: type, secretHash: try row.optionalBytes(3),
            redirectURIs: try row.list(4), allowedScopes: try row.list(5), allowedGrantTypes: try row.list(6),
            logoURL: row.optionalText(7), privacyURL: row.optionalText(8), idTokenSigningAlgorithm: row.text(9),
            postLogoutRedirectURIs: try row.list(10), createdAt: try row.date(11))
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
        client.mayIntrospect = try row.bool(18)
        return client
    }

    private static func clientValues(_ client: Client) throws -> [PostgresValue] {
        try client.checkStorable()
        return [
            .text(client.name), .text(client.type.rawValue), .bytes(client.secretHash),
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

    private static func decodeScope(_ row: PostgresRow) throws -> ProductScope {
        ProductScope(
            name: row.text(0), description: row.text(1), createdAt: try row.date(2), resource: row.optionalText(3))
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

    private static func decodeKey(_ row: PostgresRow) throws -> StoredSigningKey {
        let stateName = row.text(3)
        guard let state = SigningKeyState(rawValue: stateName) else {
            throw StoreError.corrupt("unknown signing key state '\(stateName)'")
        }
        return StoredSigningKey(
            id: row.text(0), algorithm: row.text(1), privateKeyPEM: row.text(2), state: state,
            isCurrent: try row.bool(4), createdAt: try row.date(5), retiredAt: try row.optionalDate(6),
            signsFrom: try row.optionalDate(7))
    }

    func insert(_ key: StoredSigningKey) throws {
        if key.isCurrent {
            try key.checkMayBeCurrent()
            try write(
                "UPDATE signing_keys SET is_current = false WHERE algorithm = ? AND is_current", [.text(key.algorithm)])
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
            "SELECT \(Self.keyColumns) FROM signing_keys WHERE algorithm = ? AND is_current", [.text(algorithm)],
            Self.decodeKey)
    }

    func makeCurrentSigningKey(id: String) throws {
        guard let key = try signingKey(id: id) else { throw StoreError.notFound(entity: "signing key", id: id) }
        try key.checkMayBeCurrent()
        try write(
            "UPDATE signing_keys SET is_current = false WHERE algorithm = ? AND is_current", [.text(key.algorithm)])
        try write("UPDATE signing_keys SET is_current = true WHERE kid = ?", [.text(id)])
    }

    func retireSigningKey(id: String, at time: Date) throws {
        let changed = try write(
            "UPDATE signing_keys SET state = 'retired', is_current = false, retired_at = ? WHERE kid = ?",
            [.date(time), .text(id)])
        if changed == 0 { throw StoreError.notFound(entity: "signing key", id: id) }
    }

    func deleteSigningKey(id: String) throws -> Bool {
        try write("DELETE FROM signing_keys WHERE kid = ?", [.text(id)]) > 0
    }
}
