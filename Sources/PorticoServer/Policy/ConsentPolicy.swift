import Foundation
import PorticoStore

/// Consent only grows by a person's approvals: the provider's rule, a type that asks only for
/// ``ConsentStorage``.
public struct ConsentPolicy: Sendable {
    /// The policy; it has nothing to configure.
    public init() {}

    /// Adds `scopes` to what `userID` has allowed `clientID` (creating the consent), and
    /// returns the union now granted.
    ///
    /// The union is computed from the consent read through `storage` (one transaction). Two
    /// approvals by the same person for the same app racing on separate connections could, on a
    /// backend that does not serialise them, keep only the later one's union; the person is
    /// then asked again for what was lost, which grants nothing unasked.
    @discardableResult public func grant(
        userID: String, clientID: String, scopes: Set<String>, in storage: some ConsentStorage, now: Date
    ) throws -> Consent {
        let existing = try storage.consent(userID: userID, clientID: clientID)
        let granted = (existing?.scopes ?? []).union(scopes)
        try storage.saveConsent(userID: userID, clientID: clientID, scopes: granted, now: now)
        let stamp = StoredTime.stored(now)
        return Consent(
            userID: userID, clientID: clientID, scopes: granted, createdAt: existing?.createdAt ?? stamp,
            updatedAt: stamp)
    }
}
