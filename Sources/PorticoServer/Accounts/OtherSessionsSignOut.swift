import Foundation
import PorticoStore

/// Signs a person out of every browser but the one they are using, as "Sign out everywhere
/// else" in Your Account and a password change do.
///
/// One function so that both tell the same parties: the apps of each ended session by
/// back-channel logout, and the Native SSO apps that came from it. A copy in the password
/// change once left out the back-channel step, and those apps never heard of the sign-outs.
enum OtherSessionsSignOut {
    /// Ends `userID`'s browser sessions except `keptHashedID`, in `transaction`; returns how many
    /// it ended.
    @discardableResult
    static func endSessions(
        userID: String, keeping keptHashedID: String, now: Date, in transaction: any StoreTransaction
    ) throws -> Int {
        var ended = 0
        for session in try transaction.sessions(userID: userID) where session.hashedID != keptHashedID {
            try BackChannelLogout.enqueueSessionEnd(browserSessionHashedID: session.hashedID, now: now, in: transaction)
            try NativeSSO.endSessions(browserSessionHashedID: session.hashedID, now: now, in: transaction)
            if try transaction.deleteSession(hashedID: session.hashedID) { ended += 1 }
        }
        return ended
    }
}
