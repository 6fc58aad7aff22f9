import Foundation
import PorticoStore

// The developer console (migration 21).
extension SQLTransaction {
    /// ``DeveloperStorage/acceptDeveloperTerms(userID:at:)``, for every SQL backend.
    @inlinable public func acceptDeveloperTerms(userID: String, at time: Date) throws {
        try write(
            "INSERT INTO developer_terms (user_id, accepted_at) VALUES (?, ?) ON CONFLICT (user_id) DO NOTHING",
            [.text(userID), .date(time)], referring: "user")
    }

    /// ``DeveloperStorage/developerTermsAcceptedAt(userID:)``, for every SQL backend.
    @inlinable public func developerTermsAcceptedAt(userID: String) throws -> Date? {
        try first("SELECT accepted_at FROM developer_terms WHERE user_id = ?", [.text(userID)]) {
            try $0.date("accepted_at")
        }
    }

    /// ``DeveloperStorage/insertDeveloperApp(clientID:ownerID:webOrigins:createdAt:)``.
    @inlinable public func insertDeveloperApp(clientID: String, ownerID: String, webOrigins: [String], createdAt: Date)
        throws
    {
        try write(
            "INSERT INTO developer_apps (client_id, owner_id, web_origins, created_at) VALUES (?, ?, ?, ?)",
            [.text(clientID), .text(ownerID), .list(webOrigins), .date(createdAt)], referring: "client")
    }

    /// ``DeveloperStorage/setDeveloperAppOrigins(clientID:webOrigins:)``, for every SQL backend.
    @inlinable public func setDeveloperAppOrigins(clientID: String, webOrigins: [String]) throws -> Bool {
        try write(
            "UPDATE developer_apps SET web_origins = ? WHERE client_id = ?", [.list(webOrigins), .text(clientID)])
            > 0
    }

    /// ``DeveloperStorage/setClientWebOrigins(clientID:webOrigins:)``, for every SQL backend.
    @inlinable public func setClientWebOrigins(clientID: String, webOrigins: [String]) throws {
        try write("DELETE FROM client_web_origins WHERE client_id = ?", [.text(clientID)])
        guard !webOrigins.isEmpty else { return }
        try write(
            "INSERT INTO client_web_origins (client_id, web_origins) VALUES (?, ?)",
            [.text(clientID), .list(webOrigins)], referring: "client")
    }

    /// ``DeveloperStorage/webOrigins(clientID:)``, for every SQL backend.
    @inlinable public func webOrigins(clientID: String) throws -> [String] {
        let console =
            try first("SELECT web_origins FROM developer_apps WHERE client_id = ?", [.text(clientID)]) {
                try $0.list("web_origins")
            } ?? []
        let registered =
            try first("SELECT web_origins FROM client_web_origins WHERE client_id = ?", [.text(clientID)]) {
                try $0.list("web_origins")
            } ?? []
        var origins: [String] = []
        for origin in console + registered where !origins.contains(origin) { origins.append(origin) }
        return origins
    }

    /// ``DeveloperStorage/setDeveloperCollaborator(clientID:userID:role:at:)``.
    @inlinable public func setDeveloperCollaborator(
        clientID: String, userID: String, role: DeveloperRole, at time: Date
    )
        throws
    {
        try write(
            """
            INSERT INTO developer_collaborators (client_id, user_id, role, added_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (client_id, user_id) DO UPDATE SET role = excluded.role
            """,
            [.text(clientID), .text(userID), .text(role.rawValue), .date(time)], referring: "client")
    }

    /// ``DeveloperStorage/removeDeveloperCollaborator(clientID:userID:)``, for every SQL backend.
    @inlinable public func removeDeveloperCollaborator(clientID: String, userID: String) throws -> Bool {
        try write(
            "DELETE FROM developer_collaborators WHERE client_id = ? AND user_id = ?", [.text(clientID), .text(userID)])
            > 0
    }

    /// ``DeveloperStorage/developerCollaborators(clientID:)``, for every SQL backend.
    @inlinable public func developerCollaborators(clientID: String) throws -> [(userID: String, role: DeveloperRole)] {
        try all(
            "SELECT user_id, role FROM developer_collaborators WHERE client_id = ? ORDER BY added_at, user_id",
            [.text(clientID)]
        ) { row in
            let name = try row.text("role")
            guard let role = DeveloperRole(rawValue: name) else {
                throw StoreError.corrupt("unknown developer role '\(name)'")
            }
            return (try row.text("user_id"), role)
        }
    }

    @usableFromInline static func decodeDeveloperApp(_ row: Row, role: DeveloperRole?) throws -> DeveloperApp {
        let clientID = try row.text("client_id")
        let ownerID = try row.text("owner_id")
        let origins = try row.list("web_origins")
        let createdAt = try row.date("created_at")
        var found = role ?? .owner
        if role == nil, let name = try row.optionalText("role") {
            guard let collaborator = DeveloperRole(rawValue: name) else {
                throw StoreError.corrupt("unknown developer role '\(name)'")
            }
            found = collaborator
        }
        return DeveloperApp(
            clientID: clientID, ownerID: ownerID, role: found, webOrigins: origins, createdAt: createdAt)
    }

    /// ``DeveloperStorage/developerApp(clientID:userID:)``, for every SQL backend.
    @inlinable public func developerApp(clientID: String, userID: String) throws -> DeveloperApp? {
        guard
            let app = try first(
                "SELECT client_id, owner_id, web_origins, created_at FROM developer_apps WHERE client_id = ?",
                [.text(clientID)], { try Self.decodeDeveloperApp($0, role: .owner) })
        else { return nil }
        if app.ownerID == userID { return app }
        let role = try developerCollaborators(clientID: clientID).first { $0.userID == userID }?.role
        guard let role else { return nil }
        return DeveloperApp(
            clientID: app.clientID, ownerID: app.ownerID, role: role, webOrigins: app.webOrigins,
            createdAt: app.createdAt)
    }

    /// ``DeveloperStorage/developerApps(userID:)``, for every SQL backend.
    @inlinable public func developerApps(userID: String) throws -> [DeveloperApp] {
        try all(
            """
            SELECT a.client_id, a.owner_id, a.web_origins, a.created_at, c.role
            FROM developer_apps a LEFT JOIN developer_collaborators c ON c.client_id = a.client_id AND c.user_id = ?
            WHERE a.owner_id = ? OR c.user_id IS NOT NULL
            ORDER BY a.created_at DESC, a.client_id
            """,
            [.text(userID), .text(userID)]
        ) { row in
            let app = try Self.decodeDeveloperApp(row, role: nil)
            guard app.ownerID == userID else { return app }
            return DeveloperApp(
                clientID: app.clientID, ownerID: app.ownerID, role: .owner, webOrigins: app.webOrigins,
                createdAt: app.createdAt)
        }
    }

    /// ``DeveloperStorage/allDeveloperApps()``, for every SQL backend.
    @inlinable public func allDeveloperApps() throws -> [DeveloperApp] {
        try all(
            "SELECT client_id, owner_id, web_origins, created_at FROM developer_apps ORDER BY created_at DESC, client_id",
            []
        ) { try Self.decodeDeveloperApp($0, role: .owner) }
    }

    /// ``DeveloperStorage/rotateClientSecret(id:newHash:previousExpiresAt:)``, for every SQL
    /// backend: one conditional statement, so two rotations cannot both keep the same previous.
    @inlinable public func rotateClientSecret(id: String, newHash: [UInt8], previousExpiresAt: Date) throws -> Bool {
        try write(
            """
            UPDATE clients SET previous_secret_hash = secret_hash, previous_secret_expires_at = ?, secret_hash = ?
            WHERE id = ? AND secret_hash IS NOT NULL
            """,
            [.date(previousExpiresAt), .bytes(newHash), .text(id)]) > 0
    }

    /// ``DeveloperStorage/setOperator(userID:on:at:)``, for every SQL backend.
    @inlinable public func setOperator(userID: String, on: Bool, at time: Date) throws -> Bool {
        if on {
            return try write(
                "INSERT INTO operators (user_id, granted_at) VALUES (?, ?) ON CONFLICT (user_id) DO NOTHING",
                [.text(userID), .date(time)], referring: "user") > 0
        }
        return try write("DELETE FROM operators WHERE user_id = ?", [.text(userID)]) > 0
    }

    /// ``DeveloperStorage/isOperator(userID:)``, for every SQL backend.
    @inlinable public func isOperator(userID: String) throws -> Bool {
        try first("SELECT 1 AS found FROM operators WHERE user_id = ?", [.text(userID)]) { _ in true } ?? false
    }
}
