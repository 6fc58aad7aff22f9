import Foundation

/// Passkeys: each person's WebAuthn user handle, their credentials, and the challenges of
/// ceremonies under way.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements". The store holds no
/// policy: the WebAuthn checks, the counter rule and "the last way to sign in stays" are the
/// provider's; the store offers the conditional writes they rest on.
public protocol PasskeyStorage {
    /// The person's user handle (64 random bytes, never derived from the e-mail), or nil.
    func passkeyUserHandle(userID: String) throws -> [UInt8]?
    /// Gives the person `handle` unless they already have one; returns the handle they have
    /// afterwards (of two racing calls, both return the one that was stored first).
    func assignPasskeyUserHandle(userID: String, handle: [UInt8]) throws -> [UInt8]
    /// The person whose user handle is `handle`.
    func userID(passkeyUserHandle handle: [UInt8]) throws -> String?

    /// Stores a new credential; ``StoreError/duplicate(field:)`` (`credential_id`) when the id
    /// is registered already, to anyone.
    func insert(_ credential: PasskeyCredential) throws
    /// The credential with this id, whoever it belongs to.
    func passkeyCredential(id: [UInt8]) throws -> PasskeyCredential?
    /// The person's credentials, oldest first.
    func passkeyCredentials(userID: String) throws -> [PasskeyCredential]
    /// Records a sign-in with the credential. Conditional on the stored counter still being
    /// `previousSignCount`: of two racing assertions, exactly one returns true.
    func recordPasskeyUse(
        credentialID: [UInt8], previousSignCount: Int64, signCount: Int64, backedUp: Bool, at time: Date
    ) throws -> Bool
    /// Renames one of the person's credentials; false when they have no such credential.
    func renamePasskey(userID: String, credentialID: [UInt8], name: String) throws -> Bool
    /// Removes one of the person's credentials; false when they have no such credential.
    func deletePasskey(userID: String, credentialID: [UInt8]) throws -> Bool

    /// Stores an issued challenge; drops those expired at `now`.
    func insert(_ challenge: PasskeyChallenge, now: Date) throws
    /// Takes the unexpired challenge with this hash and purpose out of the store, so it can
    /// answer one ceremony only: of two racing calls, exactly one gets it.
    func consumePasskeyChallenge(hash: [UInt8], purpose: PasskeyChallenge.Purpose, now: Date) throws
        -> PasskeyChallenge?
    /// Records that a challenge the provider issued without storing it (one that carries its
    /// own expiry and proof of origin) has answered its ceremony: true the first time, false
    /// when its hash is recorded already, so of two racing calls on any nodes exactly one
    /// returns true. The record is kept at least until the challenge's `expiresAt`, which the
    /// caller sets past the challenge's own expiry (nodes' clocks differ); the background purge
    /// removes it after that.
    func claimPasskeyChallenge(_ challenge: PasskeyChallenge, now: Date) throws -> Bool
}
