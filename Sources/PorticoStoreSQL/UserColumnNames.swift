/// The names under which a user's columns come back: as the `users` table names them, or, where a
/// statement returns a user beside a row of its own (the refresh rotation returns the family and
/// its person), prefixed `user_` so that no name stands twice (`id` and `created_at` are the
/// family's). Decoders read a user by these names, never by position.
@usableFromInline struct UserColumnNames: Sendable {
    @usableFromInline let id: String
    @usableFromInline let email: String
    @usableFromInline let name: String
    @usableFromInline let postalCode: String
    @usableFromInline let passwordHash: String
    @usableFromInline let disabled: String
    @usableFromInline let createdAt: String
    @usableFromInline let updatedAt: String
    @usableFromInline let emailVerified: String

    /// Makes names with `prefix` before each of the table's.
    @usableFromInline init(prefix: String) {
        id = prefix + "id"
        email = prefix + "email"
        name = prefix + "name"
        postalCode = prefix + "postal_code"
        passwordHash = prefix + "password_hash"
        disabled = prefix + "disabled"
        createdAt = prefix + "created_at"
        updatedAt = prefix + "updated_at"
        emailVerified = prefix + "email_verified"
    }

    /// The `users` table's own names.
    @usableFromInline static let table = UserColumnNames(prefix: "")

    /// The names beside another row: `user_id` (the other row's own reference to its person,
    /// the same value), `user_email`, and so on.
    @usableFromInline static let joined = UserColumnNames(prefix: "user_")
}
