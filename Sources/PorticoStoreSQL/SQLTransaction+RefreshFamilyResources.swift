import PorticoStore

// The resource a refresh family was issued for.
extension SQLTransaction {
    /// Records (or replaces) the resource of a refresh family.
    @inlinable public func recordResource(_ resource: String, forRefreshFamily familyID: String) throws {
        try write(
            """
            INSERT INTO refresh_family_resources (family_id, resource) VALUES (?, ?)
            ON CONFLICT (family_id) DO UPDATE SET resource = excluded.resource
            """,
            [.text(familyID), .text(resource)], referring: "refresh family")
    }

    /// The resource a refresh family was issued for, if one was recorded.
    @inlinable public func resource(refreshFamilyID familyID: String) throws -> String? {
        try first("SELECT resource FROM refresh_family_resources WHERE family_id = ?", [.text(familyID)]) {
            try $0.text("resource")
        }
    }
}
