import Foundation

/// A person with a platform account, as the store keeps it (PorticoKit's `User` is what an app
/// learns of them).
///
/// The e-mail address is kept as typed, for display, and compared case-insensitively: the
/// store keeps a lowercase copy under a unique index, so `Ann@Example.com` and
/// `ann@example.com` are one account. Times are kept to whole seconds.
public struct UserRecord: Sendable, Hashable {
    /// The stable identifier that tokens carry as `sub` and `user_id`.
    public var id: String
    /// The address as the person typed it.
    public var email: String
    /// The display name.
    public var name: String
    /// The postal code, shared only under the `postal_code` scope.
    public var postalCode: String?
    /// The Argon2id hash as a PHC string, so that parameters travel with it and can change.
    public var passwordHash: String
    /// Whether sign-in is refused; the account and its history stay.
    public var isDisabled: Bool
    /// Whether the person proved they receive mail at ``email`` (they followed a mailed link:
    /// sign-up confirmation or a password reset), reported as `email_verified`. False when
    /// unknown: accounts made before verification existed, or by an operator without
    /// `--email-verified`. Whoever changes ``email`` must set it back to false.
    public var isEmailVerified: Bool
    /// When the account was created.
    public var createdAt: Date
    /// When the account was last changed; callers set it when they update.
    public var updatedAt: Date

    /// A user ready to insert; `id` defaults to a fresh random identifier.
    public init(
        id: String = RecordIdentifier.random(), email: String, name: String, postalCode: String? = nil,
        passwordHash: String, isDisabled: Bool = false, isEmailVerified: Bool = false, createdAt: Date = Date(),
        updatedAt: Date? = nil
    ) {
        self.id = id
        self.email = email
        self.name = name
        self.postalCode = postalCode
        self.passwordHash = passwordHash
        self.isDisabled = isDisabled
        self.isEmailVerified = isEmailVerified
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
    }

    /// The form under which e-mail addresses are compared and kept unique.
    public static func normalizedEmail(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespaces).lowercased()
    }
}
