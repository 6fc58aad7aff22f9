import Foundation
import PorticoStore

// What the one-step refresh rotation returns, written once: each backend's own statement
// (``SQLTransaction`` says why the statements differ) returns these columns, and this decodes them.

/// The family's columns (as `f`), its person's (as `u`, named as ``UserColumnNames/joined``: the
/// person's id is the family's `user_id`), then the rows that hang off the family, one scalar
/// subquery each (each looked up by its primary key), and the grant's last removal.
@usableFromInline let refreshRotationColumns = """
    f.id, f.client_id, f.user_id, f.scopes, f.auth_time, f.created_at, f.revoked_at,
        u.email AS user_email, u.name AS user_name, u.postal_code AS user_postal_code,
        u.password_hash AS user_password_hash, u.disabled AS user_disabled, u.created_at AS user_created_at,
        u.updated_at AS user_updated_at, u.email_verified AS user_email_verified,
        (SELECT r.resource FROM refresh_family_resources r WHERE r.family_id = f.id) AS resource,
        (SELECT m.methods FROM refresh_family_methods m WHERE m.family_id = f.id) AS methods,
        (SELECT s.sid FROM session_families s WHERE s.family_id = f.id) AS sid,
        f.device_session_id,
        (SELECT g.revoked_at FROM grant_revocations g WHERE g.user_id = f.user_id AND g.client_id = f.client_id)
            AS grant_revoked_at
    """

extension SQLTransaction {
    /// The columns a backend's rotation returns (after `SELECT` or `RETURNING`), from
    /// `refresh_families AS f` and `users AS u`; ``decodeRefreshRotation(_:)`` reads them.
    @inlinable public static var refreshRotationColumnList: String { refreshRotationColumns }

    /// The record of a rotation from the columns of ``refreshRotationColumnList``.
    @inlinable public static func decodeRefreshRotation(_ row: Row) throws -> RefreshRotationRecord {
        RefreshRotationRecord(
            family: try decodeFamily(row), user: try decodeUser(row, names: .joined),
            resource: try row.optionalText("resource"),
            authenticationMethods: try row.optionalText("methods").map { $0.split(separator: " ").map(String.init) },
            sessionID: try row.optionalText("sid"), deviceSessionID: try row.optionalText("device_session_id"),
            grantRevokedAt: try row.optionalDate("grant_revoked_at"))
    }
}
