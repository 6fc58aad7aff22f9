/// A security profile a client is held to as a whole (`client add --profile`), beyond its
/// individual flags.
public enum SecurityProfile: String, Sendable, Hashable, CaseIterable {
    /// The FAPI 2.0 Security Profile: pushed requests only, PKCE S256, `private_key_jwt`, DPoP,
    /// `iss` in the response, codes of at most 60 seconds, no public clients.
    case fapi2
}
