/// The resource server (RFC 8707 `resource`) a refresh family's authorization was bound to,
/// so that every access token refreshed from it is meant for the same audience.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol RefreshFamilyResourceStorage {
    /// Remembers that family `familyID` was issued for `resource`; the record goes with the family.
    func recordResource(_ resource: String, forRefreshFamily familyID: String) throws
    /// The resource family `familyID` was issued for, or nil when it names none.
    func resource(refreshFamilyID familyID: String) throws -> String?
}
