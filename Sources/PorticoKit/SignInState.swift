import Foundation

/// What the token store says about the person, told apart: signed in, signed out, or not
/// known because the store cannot be read now (a keychain that is still locked after a
/// prewarmed launch, before the device's first unlock). An app must not show "signed out"
/// for the last case, nor sign the person out: it asks again once the device is unlocked.
public enum SignInState: Sendable {
    /// A grant is stored (it may still turn out to be revoked at the provider).
    case signedIn
    /// No grant is stored.
    case signedOut
    /// The store cannot be read now; the error says why (``AuthorizationError/isLockedKeychain``
    /// when the keychain is locked).
    case unavailable(AuthorizationError)
}

/// Marks an ``AuthorizationError`` as "the keychain is locked".
struct KeychainLocked: Error {}

extension AuthorizationError {
    /// Whether this error says the keychain is locked (the device has not been unlocked since
    /// it started), so the grant may well be there.
    public var isLockedKeychain: Bool { underlyingError is KeychainLocked }
}
