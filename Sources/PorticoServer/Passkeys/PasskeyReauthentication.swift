import Foundation

/// Whether a browser signed in with a passkey recently enough to stand in for a password:
/// pages that ask for the password again (closing the account, setting a first password on a
/// passkey-only account) accept a passkey sign-in at most
/// ``PasskeyEndpoint/reauthenticationWindow`` old instead. A recent *password* sign-in never
/// counts: a browser left signed in would otherwise be enough.
enum PasskeyReauthentication {
    /// Whether `signedIn` is a passkey sign-in within the window.
    static func isRecent(_ signedIn: SignInSession, environment: PageEnvironment) throws -> Bool {
        guard environment.now().timeIntervalSince(signedIn.session.authTime) <= PasskeyEndpoint.reauthenticationWindow
        else { return false }
        let methods = try environment.store.read {
            try $0.authenticationMethods(sessionHashedID: signedIn.session.hashedID)
        }
        return methods?.contains { $0 == "hwk" || $0 == "swk" } ?? false
    }
}
