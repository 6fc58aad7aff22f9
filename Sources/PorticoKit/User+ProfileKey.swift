extension User {
    /// The keys of ``User/profileData`` behind LWA's `AMZNUser` properties (the seed's
    /// `userID`, `name`, `email`, `postalCode`), so apps read other fields by the same names
    /// the provider's profile answer uses.
    public enum ProfileKey {
        /// LWA's `user_id` (``User/userID``).
        public static let userID = "user_id"
        /// OpenID Connect's `sub`, read when there is no `user_id`.
        public static let subject = "sub"
        /// The person's name (``User/name``).
        public static let name = "name"
        /// The person's email address (``User/email``).
        public static let email = "email"
        /// The postal code (``User/postalCode``), with the `postal_code` scope.
        public static let postalCode = "postal_code"
    }
}
