import Foundation
import PorticoStore

// Users, clients, product scopes and signing keys.
@usableFromInline let userColumns =
    "id, email, name, postal_code, password_hash, disabled, created_at, updated_at, email_verified"

@usableFromInline let clientColumns = """
    id, name, type, secret_hash, redirect_uris, allowed_scopes, allowed_grant_types, logo_url, privacy_url,
    id_token_signing_alg, post_logout_redirect_uris, created_at, sso_group, resources, subject_type,
    sector_identifier, backchannel_logout_uri, jwks, introspection, requires_dpop, suspended_at, verified,
    previous_secret_hash, previous_secret_expires_at,
    requires_par, security_profile, jwks_uri, terms_url
    """

@usableFromInline let keyColumns =
    "kid, algorithm, private_key_pem, state, is_current, created_at, retired_at, signs_from"

extension SQLTransaction {
    // MARK: Users

    /// The columns ``decodeUser(_:)`` reads, for a backend's own statements that return a user
    /// (PostgreSQL's bearer standing).
    @inlinable public static var userColumnList: String { userColumns }

    /// A user from the columns of ``userColumnList``, by their names in the `users` table.
    @inlinable public static func decodeUser(_ row: Row) throws -> UserRecord {
        try decodeUser(row, names: .table)
    }

    /// A user from columns that come back under `names`.
    @inlinable static func decodeUser(_ row: Row, names: UserColumnNames) throws -> UserRecord {
        // Read in the statements' order, so that each name is found at the first place looked.
        let id = try row.text(names.id)
        let email = try row.text(names.email)
        let name = try row.text(names.name)
        let postalCode = try row.optionalText(names.postalCode)
        let passwordHash = try row.text(names.passwordHash)
        let isDisabled = try row.bool(names.disabled)
        let createdAt = try row.date(names.createdAt)
        let updatedAt = try row.date(names.updatedAt)
        return UserRecord(
            id: id, email: email, name: name, postalCode: postalCode, passwordHash: passwordHash,
            isDisabled: isDisabled, isEmailVerified: try row.bool(names.emailVerified), createdAt: createdAt,
            updatedAt: updatedAt)
    }

    /// ``UserStorage/insert(_:)``, for every SQL backend.
    @inlinable public func insert(_ user: UserRecord) throws {
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

    /// ``UserStorage/user(id:)``, for every SQL backend.
    @inlinable public func user(id: String) throws -> UserRecord? {
        try first("SELECT \(userColumns) FROM users WHERE id = ?", [.text(id)], Self.decodeUser)
    }

    /// ``UserStorage/user(email:)``, for every SQL backend.
    @inlinable public func user(email: String) throws -> UserRecord? {
        try first(
            "SELECT \(userColumns) FROM users WHERE email_normalized = ?",
            [.text(UserRecord.normalizedEmail(email))], Self.decodeUser)
    }

    /// ``UserStorage/users(limit:)``, for every SQL backend.
    @inlinable public func users(limit: Int) throws -> [UserRecord] {
        try all(
            "SELECT \(userColumns) FROM users ORDER BY created_at, id LIMIT ?", [.int(max(0, limit))],
            Self.decodeUser)
    }

    /// ``UserStorage/update(_:)``, for every SQL backend.
    @inlinable public func update(_ user: UserRecord) throws {
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

    /// ``UserStorage/deleteUser(id:)``, for every SQL backend.
    @inlinable public func deleteUser(id: String) throws -> Bool {
        try write("DELETE FROM users WHERE id = ?", [.text(id)]) > 0
    }

    // MARK: Clients

    @usableFromInline static func decodeClient(_ row: Row) throws -> Client {
        // Read in the statement's order, so that each name is found at the first place looked.
        let id = try row.text("id")
        let name = try row.text("name")
        let typeName = try row.text("type")
        guard let type = ClientType(rawValue: typeName) else {
            throw StoreError.corrupt("unknown client type '\(typeName)'")
        }
        var client = Client(
            id: id, name: name, type: type, secretHash: try row.optionalBytes("secret_hash"),
            redirectURIs: try row.list("redirect_uris"), allowedScopes: try row.list("allowed_scopes"),
            allowedGrantTypes: try row.list("allowed_grant_types"), logoURL: try row.optionalText("logo_url"),
            privacyURL: try row.optionalText("privacy_url"),
            idTokenSigningAlgorithm: try row.text("id_token_signing_alg"),
            postLogoutRedirectURIs: try row.list("post_logout_redirect_uris"), createdAt: try row.date("created_at"))
        client.ssoGroup = try row.optionalText("sso_group")
        client.resources = try row.list("resources")
        let subjectType = try row.text("subject_type")
        guard let subject = SubjectType(rawValue: subjectType) else {
            throw StoreError.corrupt("unknown subject type '\(subjectType)'")
        }
        client.subjectType = subject
        client.sectorIdentifier = try row.optionalText("sector_identifier")
        client.backchannelLogoutURI = try row.optionalText("backchannel_logout_uri")
        client.jwks = try row.optionalText("jwks")
        client.mayIntrospect = try row.bool("introspection")
        client.requiresDPoP = try row.bool("requires_dpop")
        client.suspendedAt = try row.optionalDate("suspended_at")
        client.isVerified = try row.bool("verified")
        client.previousSecretHash = try row.optionalBytes("previous_secret_hash")
        client.previousSecretExpiresAt = try row.optionalDate("previous_secret_expires_at")
        client.requiresPAR = try row.bool("requires_par")
        if let profile = try row.optionalText("security_profile") {
            guard let known = SecurityProfile(rawValue: profile) else {
                throw StoreError.corrupt("unknown security profile '\(profile)'")
            }
            client.securityProfile = known
        }
        client.jwksURI = try row.optionalText("jwks_uri")
        client.termsURL = try row.optionalText("terms_url")
        return client
    }

    @usableFromInline static func clientValues(_ client: Client) throws -> [SQLValue] {
        try client.checkStorable()
        return [
            .text(client.name), .text(client.type.rawValue), .bytes(client.secretHash),
            .list(client.redirectURIs), .list(client.allowedScopes), .list(client.allowedGrantTypes),
            .text(client.logoURL), .text(client.privacyURL), .text(client.idTokenSigningAlgorithm),
            .list(client.postLogoutRedirectURIs), .text(client.ssoGroup), .list(client.resources),
            .text(client.subjectType.rawValue), .text(client.sectorIdentifier), .text(client.backchannelLogoutURI),
            .text(client.jwks), .bool(client.mayIntrospect), .bool(client.requiresDPoP),
            .bool(client.requiresPAR),
            .text(client.securityProfile?.rawValue),
        ]
    }

    /// ``ClientStorage/insert(_:)``, for every SQL backend.
    @inlinable public func insert(_ client: Client) throws {
        try write(
            """
            INSERT INTO clients (name, type, secret_hash, redirect_uris, allowed_scopes, allowed_grant_types, logo_url,
                privacy_url, id_token_signing_alg, post_logout_redirect_uris, sso_group, resources, subject_type,
                sector_identifier, backchannel_logout_uri, jwks, introspection, requires_dpop, requires_par,
                security_profile, id, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            try Self.clientValues(client) + [.text(client.id), .date(client.createdAt)])
        // Verified is the column's default; only an unverified app (dynamic registration,
        // version 19) writes it, so the statement above still fits older schemas' tests.
        if !client.isVerified {
            try write("UPDATE clients SET verified = ? WHERE id = ?", [.bool(false), .text(client.id)])
        }
        // Likewise for a JWKS URI (version 23).
        if let jwksURI = client.jwksURI {
            try write("UPDATE clients SET jwks_uri = ? WHERE id = ?", [.text(jwksURI), .text(client.id)])
        }
        // And for a terms URL (version 25).
        if let termsURL = client.termsURL {
            try write("UPDATE clients SET terms_url = ? WHERE id = ?", [.text(termsURL), .text(client.id)])
        }
    }

    /// ``ClientStorage/client(id:)``, for every SQL backend.
    @inlinable public func client(id: String) throws -> Client? {
        try first("SELECT \(clientColumns) FROM clients WHERE id = ?", [.text(id)], Self.decodeClient)
    }

    /// ``ClientStorage/clients()``, for every SQL backend.
    @inlinable public func clients() throws -> [Client] {
        try all("SELECT \(clientColumns) FROM clients ORDER BY created_at, id", [], Self.decodeClient)
    }

    /// ``ClientStorage/update(_:)``, for every SQL backend.
    @inlinable public func update(_ client: Client) throws {
        let changed = try write(
            """
            UPDATE clients SET name = ?, type = ?, secret_hash = ?, redirect_uris = ?, allowed_scopes = ?,
                allowed_grant_types = ?, logo_url = ?, privacy_url = ?, id_token_signing_alg = ?,
                post_logout_redirect_uris = ?, sso_group = ?, resources = ?, subject_type = ?, sector_identifier = ?,
                backchannel_logout_uri = ?, jwks = ?, introspection = ?, requires_dpop = ?, requires_par = ?,
                security_profile = ?, jwks_uri = ?, terms_url = ?
            WHERE id = ?
            """,
            try Self.clientValues(client) + [.text(client.jwksURI), .text(client.termsURL), .text(client.id)])
        if changed == 0 { throw StoreError.notFound(entity: "client", id: client.id) }
    }

    /// ``ClientStorage/deleteClient(id:)``, for every SQL backend.
    @inlinable public func deleteClient(id: String) throws -> Bool {
        try write("DELETE FROM clients WHERE id = ?", [.text(id)]) > 0
    }

    // MARK: Product scopes

    @usableFromInline static func decodeScope(_ row: Row) throws -> ProductScope {
        ProductScope(
            name: try row.text("name"), description: try row.text("description"), createdAt: try row.date("created_at"),
            resource: try row.optionalText("resource"))
    }

    /// ``ProductScopeStorage/insert(_:)``, for every SQL backend.
    @inlinable public func insert(_ scope: ProductScope) throws {
        try write(
            "INSERT INTO product_scopes (name, description, created_at, resource) VALUES (?, ?, ?, ?)",
            [.text(scope.name), .text(scope.description), .date(scope.createdAt), .text(scope.resource)])
    }

    /// ``ProductScopeStorage/productScope(name:)``, for every SQL backend.
    @inlinable public func productScope(name: String) throws -> ProductScope? {
        try first(
            "SELECT name, description, created_at, resource FROM product_scopes WHERE name = ?", [.text(name)],
            Self.decodeScope)
    }

    /// ``ProductScopeStorage/productScopes()``, for every SQL backend.
    @inlinable public func productScopes() throws -> [ProductScope] {
        try all(
            "SELECT name, description, created_at, resource FROM product_scopes ORDER BY name", [], Self.decodeScope)
    }

    /// ``ProductScopeStorage/update(_:)``, for every SQL backend.
    @inlinable public func update(_ scope: ProductScope) throws {
        let changed = try write(
            "UPDATE product_scopes SET description = ?, resource = ? WHERE name = ?",
            [.text(scope.description), .text(scope.resource), .text(scope.name)])
        if changed == 0 { throw StoreError.notFound(entity: "scope", id: scope.name) }
    }

    /// ``ProductScopeStorage/deleteProductScope(name:)``, for every SQL backend.
    @inlinable public func deleteProductScope(name: String) throws -> Bool {
        try write("DELETE FROM product_scopes WHERE name = ?", [.text(name)]) > 0
    }

    // MARK: Signing keys

    @usableFromInline static func decodeKey(_ row: Row) throws -> StoredSigningKey {
        let id = try row.text("kid")
        let algorithm = try row.text("algorithm")
        let privateKeyPEM = try row.text("private_key_pem")
        let stateName = try row.text("state")
        guard let state = SigningKeyState(rawValue: stateName) else {
            throw StoreError.corrupt("unknown signing key state '\(stateName)'")
        }
        return StoredSigningKey(
            id: id, algorithm: algorithm, privateKeyPEM: privateKeyPEM, state: state,
            isCurrent: try row.bool("is_current"), createdAt: try row.date("created_at"),
            retiredAt: try row.optionalDate("retired_at"), signsFrom: try row.optionalDate("signs_from"))
    }

    /// ``SigningKeyStorage/insert(_:)``, for every SQL backend.
    @inlinable public func insert(_ key: StoredSigningKey) throws {
        if key.isCurrent {
            try key.checkMayBeCurrent()
            try clearCurrentSigningKey(algorithm: key.algorithm)
        }
        try write(
            "INSERT INTO signing_keys (\(keyColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(key.id), .text(key.algorithm), .text(key.privateKeyPEM), .text(key.state.rawValue),
                .bool(key.isCurrent), .date(key.createdAt), .date(key.retiredAt), .date(key.signsFrom),
            ])
    }

    /// ``SigningKeyStorage/signingKey(id:)``, for every SQL backend.
    @inlinable public func signingKey(id: String) throws -> StoredSigningKey? {
        try first("SELECT \(keyColumns) FROM signing_keys WHERE kid = ?", [.text(id)], Self.decodeKey)
    }

    /// ``SigningKeyStorage/signingKeys()``, for every SQL backend.
    @inlinable public func signingKeys() throws -> [StoredSigningKey] {
        try all("SELECT \(keyColumns) FROM signing_keys ORDER BY created_at, kid", [], Self.decodeKey)
    }

    /// ``SigningKeyStorage/currentSigningKey(algorithm:)``, for every SQL backend.
    @inlinable public func currentSigningKey(algorithm: String) throws -> StoredSigningKey? {
        try first(
            "SELECT \(keyColumns) FROM signing_keys WHERE algorithm = ? AND \(dialect.isTrue("is_current"))",
            [.text(algorithm)], Self.decodeKey)
    }

    /// ``SigningKeyStorage/makeCurrentSigningKey(id:)``, for every SQL backend.
    @inlinable public func makeCurrentSigningKey(id: String) throws {
        guard let key = try signingKey(id: id) else { throw StoreError.notFound(entity: "signing key", id: id) }
        try key.checkMayBeCurrent()
        try clearCurrentSigningKey(algorithm: key.algorithm)
        try write("UPDATE signing_keys SET is_current = ? WHERE kid = ?", [.bool(true), .text(id)])
    }

    /// ``SigningKeyStorage/retireSigningKey(id:at:)``, for every SQL backend.
    @inlinable public func retireSigningKey(id: String, at time: Date) throws {
        let changed = try write(
            "UPDATE signing_keys SET state = 'retired', is_current = ?, retired_at = ? WHERE kid = ?",
            [.bool(false), .date(time), .text(id)])
        if changed == 0 { throw StoreError.notFound(entity: "signing key", id: id) }
    }

    /// ``SigningKeyStorage/deleteSigningKey(id:)``, for every SQL backend.
    @inlinable public func deleteSigningKey(id: String) throws -> Bool {
        try write("DELETE FROM signing_keys WHERE kid = ?", [.text(id)]) > 0
    }

    /// Makes the algorithm's current key, if any, no longer current: at most one key of an
    /// algorithm signs (the partial unique index `signing_keys_current`).
    @usableFromInline func clearCurrentSigningKey(algorithm: String) throws {
        try write(
            "UPDATE signing_keys SET is_current = ? WHERE algorithm = ? AND \(dialect.isTrue("is_current"))",
            [.bool(false), .text(algorithm)])
    }
}
