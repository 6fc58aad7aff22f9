import PorticoStore

/// An app the operator has not verified signs in at most ``maximumPeople`` different people
/// (as Google caps unverified apps): a person who has not allowed it yet is turned away with a
/// page once that many have. Checked where consent is shown and where it is stored.
enum UnverifiedAppLimit {
    /// How many different people an unverified app may sign in.
    static let maximumPeople = 100

    /// Throws ``PageProblem/unverifiedAppLimit(appName:)`` when `userID` may not allow `client`.
    static func check(_ client: Client, userID: String, in transaction: any StoreTransaction) throws {
        guard !client.isVerified, try transaction.consent(userID: userID, clientID: client.id) == nil else { return }
        if try transaction.consentCount(clientID: client.id) >= maximumPeople {
            throw PageProblem.unverifiedAppLimit(appName: client.name)
        }
    }
}
