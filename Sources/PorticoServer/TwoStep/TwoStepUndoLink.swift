import Foundation
import PorticoCrypto
import PorticoStore

/// The "Not you? Turn it off" link of the mail that says two-step verification was turned on:
/// the owner's way back when someone else enrolled their own authenticator (with a stolen
/// session and password), which a password reset alone does not undo, and must not, or a
/// mailbox thief could reset their way past the second step.
///
/// The link works for ``lifetime`` after the enrollment and for that one enrollment only: the
/// token is `user id . expiry . HMAC-SHA256` over both and a digest of the enrollment's sealed
/// secret, under a key derived from the key-encryption key (not in the database). Nothing is
/// stored, and the link is single use all the same: once it turns two-step off, or the person
/// enrolls again, the secret it names is gone. So a mailbox thief gets from it only what the
/// owner's enrollment of the last few days would have withheld, and the mail says that the link
/// ends every session.
struct TwoStepUndoLink: Sendable {
    /// How long the link works: long enough to notice the mail, reset the password and act.
    static let lifetime: TimeInterval = 7 * 24 * 60 * 60
    /// The page's path.
    static let path = "/account/two-step/undo"
    /// The longest token accepted; anything longer is not one of ours.
    static let maximumTokenLength = 512

    /// The provider's keys and clock.
    let environment: PageEnvironment

    /// The token for `enrollment`, confirmed at `now`.
    func token(for enrollment: TwoStepEnrollment, now: Date) -> String {
        let expiry = Int64(now.addingTimeInterval(Self.lifetime).timeIntervalSince1970.rounded(.down))
        let userID = Base64URL.encode(enrollment.userID)
        return userID + "." + String(expiry) + "." + Base64URL.encode(code(userID: userID, expiry: expiry, enrollment))
    }

    /// The full link for `enrollment`.
    func url(for enrollment: TwoStepEnrollment, now: Date) -> String {
        environment.issuer + Self.path + "?token=" + token(for: enrollment, now: now)
    }

    /// The confirmed enrollment `token` turns off, read in `transaction`, or nil when the token
    /// is malformed, forged, expired, or names an enrollment that no longer exists.
    func enrollment(for token: String, now: Date, in transaction: any StoreTransaction) throws -> TwoStepEnrollment? {
        guard token.utf8.count <= Self.maximumTokenLength else { return nil }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let expiry = Int64(parts[1]), let mac = Base64URL.decode(parts[2]),
            let userIDBytes = Base64URL.decode(parts[0]), let userID = String(bytes: userIDBytes, encoding: .utf8),
            Double(expiry) > now.timeIntervalSince1970,
            let enrollment = try transaction.twoStepEnrollment(userID: userID), enrollment.isConfirmed
        else { return nil }
        let expected = code(userID: String(parts[0]), expiry: expiry, enrollment)
        return ConstantTime.equals(mac, expected) ? enrollment : nil
    }

    private func code(userID encodedUserID: String, expiry: Int64, _ enrollment: TwoStepEnrollment) -> [UInt8] {
        let key = environment.keys.derivedSecret(purpose: "portico two-step undo links")
        let secretDigest = Base64URL.encode(Digest.sha256.hash(enrollment.sealedSecret))
        let message = "\(encodedUserID)\n\(expiry)\n\(secretDigest)"
        return HMAC.authenticationCode(for: Array(message.utf8), key: key, digest: .sha256)
    }
}
