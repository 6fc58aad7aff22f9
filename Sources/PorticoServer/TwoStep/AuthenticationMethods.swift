import PorticoCrypto
import PorticoStore

/// The `amr` (RFC 8176) of an ID token: how the person signed in.
///
/// `["pwd"]` for a password alone; `["pwd", "otp"]` with a code from an authenticator app (TOTP,
/// RFC 6238, is what RFC 8176 means by `otp`). A recovery code gives `["pwd", "mfa"]`: it is a
/// second factor, but not the one-time-password *device* a relying party asking for `otp`
/// expects (RFC 8176 has no value of its own for it, and `mfa` says "several factors" without
/// naming them, as Microsoft's identity platform does). The values are recorded with the
/// browser session (only when they differ from a password alone) and copied to the refresh
/// family a code starts, so refreshed ID tokens say the same.
enum AuthenticationMethods {
    /// A password alone.
    static let password = ["pwd"]
    /// A password and an authenticator-app code.
    static let passwordAndCode = ["pwd", "otp"]
    /// A password and a recovery code.
    static let passwordAndRecoveryCode = ["pwd", "mfa"]

    /// The claim's value.
    static func claim(_ methods: [String]) -> JSONValue {
        .array(methods.map(JSONValue.string))
    }

    /// The methods of the session a code came from, recorded for the refresh family it begins.
    static func carry(
        fromSession sessionHashedID: String?, toRefreshFamily familyID: String?, in transaction: any StoreTransaction
    ) throws -> [String] {
        guard let sessionHashedID, let methods = try transaction.authenticationMethods(sessionHashedID: sessionHashedID)
        else { return password }
        if let familyID { try transaction.recordAuthenticationMethods(methods, forRefreshFamily: familyID) }
        return methods
    }
}
