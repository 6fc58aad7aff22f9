extension Provider {
    /// How a provider runs device login ("enter this code on another device").
    public enum DeviceCodeDialect: Sendable, Hashable {
        /// RFC 8628: `device_authorization_endpoint`, then the token grant
        /// `urn:ietf:params:oauth:grant-type:device_code`.
        case standard
        /// Login with Amazon's code pair: `POST /auth/o2/create/codepair` with
        /// `response_type=device_code`, then `grant_type=device_code` with `device_code` and
        /// `user_code`.
        case loginWithAmazon
    }
}
