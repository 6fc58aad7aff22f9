import Foundation

/// A sign-in half done: the password was right, the second step (a code from the authenticator
/// app, or a recovery code) is still to come.
///
/// Stored, not kept in a node's memory, so any node can finish it; short-lived and single use.
/// Only the SHA-256 of the token the page carries is kept (``hashedID``).
public struct PendingSecondStep: Sendable, Hashable {
    /// SHA-256 of the token, base64url.
    public let hashedID: String
    /// Who entered the right password.
    public var userID: String
    /// "Keep me signed in", as chosen on the sign-in page.
    public var isPersistent: Bool
    /// The sealed authorization request the sign-in continues, if any.
    public var sealedRequest: String?
    /// Where a sign-in opened on its own returns, if anywhere.
    public var returnPath: String?
    /// When the password was entered.
    public var createdAt: Date
    /// When it can no longer be finished.
    public var expiresAt: Date

    /// A pending step for the plain `token`; only its hash is kept.
    public init(
        token: String, userID: String, isPersistent: Bool, sealedRequest: String?, returnPath: String?,
        createdAt: Date, expiresAt: Date
    ) {
        self.init(
            hashedID: SecretHash.reference(token), userID: userID, isPersistent: isPersistent,
            sealedRequest: sealedRequest, returnPath: returnPath, createdAt: createdAt, expiresAt: expiresAt)
    }

    /// A pending step as stored (backends only).
    public init(
        hashedID: String, userID: String, isPersistent: Bool, sealedRequest: String?, returnPath: String?,
        createdAt: Date, expiresAt: Date
    ) {
        self.hashedID = hashedID
        self.userID = userID
        self.isPersistent = isPersistent
        self.sealedRequest = sealedRequest
        self.returnPath = returnPath
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
