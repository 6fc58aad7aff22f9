/// Why a password could not be hashed.
///
/// Hashing fails only on bad settings or when memory runs out; verification never throws
/// (a hash that cannot be checked simply does not match).
public enum PasswordHashingError: Error, Sendable, Equatable {
    /// libargon2 refused; `code` is its `argon2_error_codes` value, `message` its description.
    case argon2(code: Int32, message: String)
}
